"""SQL migrations of the `jobs` schema, applied in file-name order by `printcloud.core.db.migrations`."""
