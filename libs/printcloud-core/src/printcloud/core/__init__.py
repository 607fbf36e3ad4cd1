"""Shared building blocks of every PrintCloud process."""
