"""SQL migrations of the `devices` schema, applied in file-name order by `printcloud.core.db.migrations`."""
