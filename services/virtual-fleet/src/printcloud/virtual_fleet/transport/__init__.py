"""The virtual fleet's clients of other services."""
