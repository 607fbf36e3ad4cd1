"""PostgreSQL: the URL operators write, pools and sessions, migrations, compiled reads, paging,
and why a connection failed."""
