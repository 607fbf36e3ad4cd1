"""PrintCloud jobs service: print jobs, their state changes and stored files."""
