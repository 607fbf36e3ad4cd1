"""Per-service schema migrations: numbered SQL files applied once, in order, under an advisory lock.

Every service calls `migrate()` at start-up, so any number of replicas may start together: the
lock makes one of them apply what is missing and the others find it done.

They run while the previous release still serves (docs/internals.md, "Schema changes"), so:

- a file runs in a transaction that waits at most `LOCK_TIMEOUT_SECONDS` for each lock, then
  rolls back and tries again a little later: an ALTER TABLE queued behind a long query would
  otherwise hold up every query of that table behind itself;
- a file whose first line is `NO_TRANSACTION` runs outside a transaction, as PostgreSQL requires
  of `CREATE INDEX CONCURRENTLY` and of a `DO` block that commits a backfill batch by batch. It
  holds one statement. An index such a file left INVALID when it was interrupted is dropped before
  the file runs again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from importlib import resources
from importlib.resources.abc import Traversable

import asyncpg

from printcloud.core.db.url import connect

log = logging.getLogger(__name__)

NO_TRANSACTION = "-- migration: no transaction"
LOCK_TIMEOUT_SECONDS = 5.0
LOCK_ATTEMPTS = 12
SCHEMA_LOCK_POLL_SECONDS = 0.5


class MigrationLocksUnavailable(RuntimeError):
    """A migration's locks stayed taken through every attempt: the schema is as before it."""


def _lock_key(schema: str) -> int:
    return int.from_bytes(hashlib.sha256(f"migrate:{schema}".encode()).digest()[:8], "big", signed=True)


def migration_files(package: str | Traversable) -> list[Traversable]:
    """The `NNNN_name.sql` files shipped in `package` (or found in a folder), in order."""
    folder = resources.files(package) if isinstance(package, str) else package
    files = [f for f in folder.iterdir() if f.name.endswith(".sql")]
    return sorted(files, key=lambda f: f.name)


def runs_outside_a_transaction(sql: str) -> bool:
    return sql.lstrip().startswith(NO_TRANSACTION)


async def migrate(
    database_url: str,
    schema: str,
    package: str | Traversable,
    *,
    lock_timeout_seconds: float = LOCK_TIMEOUT_SECONDS,
    lock_attempts: int = LOCK_ATTEMPTS,
) -> list[str]:
    """Applies the missing migrations of `schema` from `package`; returns the names applied."""
    conn = await connect(database_url)
    applied_now: list[str] = []
    try:
        await _take_schema_lock(conn, schema)
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
                sql = file.read_text()
                if runs_outside_a_transaction(sql):
                    await _apply_alone(conn, schema, file.name, sql)
                else:
                    await _apply_in_transaction(conn, schema, file.name, sql, lock_timeout_seconds, lock_attempts)
                applied_now.append(file.name)
                log.info("migration applied", extra={"schema": schema, "migration": file.name})
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", _lock_key(schema))
    finally:
        await conn.close()
    return applied_now


async def _take_schema_lock(conn: asyncpg.Connection, schema: str) -> None:
    """Asks for the schema's lock until it is free rather than waiting in one statement: a waiting
    statement holds a snapshot, which a CREATE INDEX CONCURRENTLY of the migrating replica waits
    for in turn, and PostgreSQL ends the pair as a deadlock."""
    while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", _lock_key(schema)):
        await asyncio.sleep(SCHEMA_LOCK_POLL_SECONDS)


async def _apply_in_transaction(
    conn: asyncpg.Connection, schema: str, name: str, sql: str, lock_timeout_seconds: float, attempts: int
) -> None:
    for attempt in range(1, attempts + 1):
        try:
            async with conn.transaction():
                await conn.execute(f'SET LOCAL search_path TO "{schema}"')
                await conn.execute(f"SET LOCAL lock_timeout = '{int(lock_timeout_seconds * 1000)}ms'")
                await conn.execute(sql)
                await _record(conn, schema, name)
            return
        except asyncpg.LockNotAvailableError:
            if attempt == attempts:
                raise MigrationLocksUnavailable(
                    f"migration {schema}/{name} could not take its locks in {attempts} attempts of "
                    f"{lock_timeout_seconds:g}s: a long transaction holds the tables it changes"
                ) from None
            log.warning(
                "migration waited too long for its locks; trying again",
                extra={"schema": schema, "migration": name, "attempt": attempt},
            )
            await asyncio.sleep(min(attempt, 5))


async def _apply_alone(conn: asyncpg.Connection, schema: str, name: str, sql: str) -> None:
    await conn.execute(f'SET search_path TO "{schema}"')
    try:
        await _drop_invalid_indexes_named_in(conn, schema, name, sql)
        await conn.execute(sql)
        await _record(conn, schema, name)
    finally:
        await conn.execute("RESET search_path")


async def _drop_invalid_indexes_named_in(conn: asyncpg.Connection, schema: str, name: str, sql: str) -> None:
    """An interrupted CREATE INDEX CONCURRENTLY leaves its index INVALID (unused, yet maintained
    on every write) and the file unrecorded: the next run builds it again from nothing."""
    invalid = await conn.fetch(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT i.indisvalid",
        schema,
    )
    for row in invalid:
        index = row["relname"]
        if re.search(rf"(?<![\w$]){re.escape(index)}(?![\w$])", sql):
            log.warning("dropping an index an interrupted migration left invalid",
                        extra={"schema": schema, "migration": name, "index": index})  # fmt: skip
            await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{schema}"."{index}"')


async def _record(conn: asyncpg.Connection, schema: str, name: str) -> None:
    await conn.execute(f'INSERT INTO "{schema}".schema_migrations (name) VALUES ($1)', name)
