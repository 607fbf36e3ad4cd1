"""Pure rules of the devices service: states, report reconciliation, events. No I/O here."""
