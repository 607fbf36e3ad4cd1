"""Storage of the devices service in its own PostgreSQL schema, `devices`."""
