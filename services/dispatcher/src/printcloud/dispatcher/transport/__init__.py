"""The dispatcher's one client: the jobs service."""
