"""Per-service schema migrations: numbered SQL files applied once, in order, under an advisory lock.

Every service calls `migrate()` at start-up, so any number of replicas may start together: the
lock makes one of them apply what is missing and the others find it done.
"""

from __future__ import annotations

import hashlib
import logging
from importlib import resources
from importlib.resources.abc import Traversable

from printcloud.core.db.url import connect

log = logging.getLogger(__name__)


def _lock_key(schema: str) -> int:
    return int.from_bytes(hashlib.sha256(f"migrate:{schema}".encode()).digest()[:8], "big", signed=True)


def migration_files(package: str) -> list[Traversable]:
    """The `NNNN_name.sql` files shipped in `package`, in order."""
    files = [f for f in resources.files(package).iterdir() if f.name.endswith(".sql")]
    return sorted(files, key=lambda f: f.name)


async def migrate(database_url: str, schema: str, package: str) -> list[str]:
    """Applies the missing migrations of `schema` from `package`; returns the names applied."""
    conn = await connect(database_url)
    applied_now: list[str] = []
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", _lock_key(schema))
        try:
            await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            await conn.execute(
                f'CREATE TABLE IF NOT EXISTS "{schema}".schema_migrations '
                "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {r["name"] for r in await conn.fetch(f'SELECT name FROM "{schema}".schema_migrations')}
            for file in migration_files(package):
                if file.name in done:
                    continue
                async with conn.transaction():
                    await conn.execute(f'SET LOCAL search_path TO "{schema}"')
                    await conn.execute(file.read_text())
                    await conn.execute(f'INSERT INTO "{schema}".schema_migrations (name) VALUES ($1)', file.name)
                applied_now.append(file.name)
                log.info("migration applied", extra={"schema": schema, "migration": file.name})
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", _lock_key(schema))
    finally:
        await conn.close()
    return applied_now
