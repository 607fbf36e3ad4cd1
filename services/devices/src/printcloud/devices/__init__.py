"""PrintCloud devices service: computers, printers, capabilities and agent credentials."""
