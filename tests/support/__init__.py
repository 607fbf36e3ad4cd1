"""Real servers the tests talk to on loopback: shared by service tests and end-to-end suites."""
