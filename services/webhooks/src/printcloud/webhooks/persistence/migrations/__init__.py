"""SQL migrations of the `webhooks` schema, applied in file-name order."""
