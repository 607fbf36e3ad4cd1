"""Storage of the jobs schema: tables, migrations and the scoped repository."""
