"""Loops of the service: URL content fetches, housekeeping and the active-jobs gauge. Each one
calls use cases."""
