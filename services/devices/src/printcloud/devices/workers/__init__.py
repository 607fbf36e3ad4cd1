"""Loops of the service: the sweep of silent agent-gateway replicas."""
