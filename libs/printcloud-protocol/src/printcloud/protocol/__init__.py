"""PrintCloud agent protocol v1 (agent/PROTOCOL.md): the agent, the agent-gateway and the virtual
fleet all speak it through this package, so neither side reads the other's messages by hand."""
