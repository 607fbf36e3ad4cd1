"""The dashboard: server-rendered pages under /dashboard (docs/api.md, "Dashboard")."""
