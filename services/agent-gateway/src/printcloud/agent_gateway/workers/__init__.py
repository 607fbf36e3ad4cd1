"""Loops of the agent-gateway: this replica's heartbeat to devices."""
