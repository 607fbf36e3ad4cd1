"""The agent-gateway: holds the agents' WebSocket connections and serves them their job files."""
