"""Runs the whole PrintCloud stack on one machine: `make dev` and the end-to-end tests."""
