import asyncio
from pathlib import Path

import asyncpg
import pytest

from printcloud.core.db.migrations import NO_TRANSACTION, MigrationLocksUnavailable, migrate
from printcloud.core.db.url import connect


async def test_core_migrations_apply_once_even_when_started_concurrently(database_url: str) -> None:
    results = await asyncio.gather(*(migrate(database_url, "svc", "printcloud.core.kafka.sql") for _ in range(4)))

    applied = [names for names in results if names]
    assert applied == [["0000_core_outbox.sql", "0001_outbox_sent_epoch.sql", "0002_dead_letters.sql"]], (
        "exactly one of the concurrent starts applies them"
    )
    conn = await connect(database_url)
    try:
        tables = {r["tablename"] for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname='svc'")}
    finally:
        await conn.close()
    assert {"outbox", "processed_messages", "dead_letters", "schema_migrations"} <= tables
    assert await migrate(database_url, "svc", "printcloud.core.kafka.sql") == []


async def _fetchval(database_url: str, sql: str, *args: object) -> object:
    conn = await connect(database_url)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


def _folder(tmp_path: Path, **files: str) -> Path:
    for name, sql in files.items():
        (tmp_path / f"{name}.sql").write_text(sql)
    return tmp_path


TABLE = "CREATE TABLE things (id integer PRIMARY KEY, code text NOT NULL);\n"
CONCURRENT_INDEX = f"{NO_TRANSACTION}\nCREATE UNIQUE INDEX CONCURRENTLY things_code ON things (code);\n"
INDEX_VALID = (
    "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'svc' AND c.relname = 'things_code'"
)


async def test_a_concurrent_index_is_built_outside_a_transaction_while_other_replicas_wait(
    database_url: str, tmp_path: Path
) -> None:
    folder = _folder(tmp_path, **{"0001_things": TABLE, "0002_things_code": CONCURRENT_INDEX})

    results = await asyncio.gather(*(migrate(database_url, "svc", folder) for _ in range(3)))

    assert sorted(map(len, results)) == [0, 0, 2], "one replica applies both; the others find them done"
    assert await _fetchval(database_url, INDEX_VALID) is True


async def test_an_index_left_invalid_by_an_interrupted_build_is_built_again(database_url: str, tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"0001_things": TABLE})
    await migrate(database_url, "svc", folder)
    conn = await connect(database_url)
    try:
        await conn.execute("INSERT INTO svc.things VALUES (1, 'a'), (2, 'a')")
        _folder(tmp_path, **{"0002_things_code": CONCURRENT_INDEX})
        with pytest.raises(asyncpg.UniqueViolationError):
            await migrate(database_url, "svc", folder)
        assert await _fetchval(database_url, INDEX_VALID) is False, "the failed build left its index behind"
        await conn.execute("UPDATE svc.things SET code = 'b' WHERE id = 2")
    finally:
        await conn.close()

    assert await migrate(database_url, "svc", folder) == ["0002_things_code.sql"]
    assert await _fetchval(database_url, INDEX_VALID) is True


async def test_a_migration_gives_up_its_lock_wait_instead_of_queueing_every_query(
    database_url: str, tmp_path: Path
) -> None:
    folder = _folder(tmp_path, **{"0001_things": TABLE})
    await migrate(database_url, "svc", folder)
    _folder(tmp_path, **{"0002_things_note": "ALTER TABLE things ADD COLUMN note text;\n"})
    reader = await connect(database_url)
    try:
        reading = reader.transaction()
        await reading.start()
        await reader.fetch("SELECT * FROM svc.things")  # a long read holds the table
        with pytest.raises(MigrationLocksUnavailable, match=r"svc/0002_things_note.sql could not take its locks"):
            await migrate(database_url, "svc", folder, lock_timeout_seconds=0.05, lock_attempts=2)
        await reading.rollback()
    finally:
        await reader.close()
    assert await _fetchval(database_url, "SELECT count(*) FROM svc.schema_migrations") == 1

    assert await migrate(database_url, "svc", folder, lock_timeout_seconds=0.05) == ["0002_things_note.sql"]
