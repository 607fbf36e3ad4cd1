"""The PrintCloud agent: connects a computer's printers to PrintCloud."""

AGENT_VERSION = "0.1.0"
