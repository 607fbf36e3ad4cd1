"""The virtual fleet: one virtual agent per organization's test-mode computer (README.md)."""
