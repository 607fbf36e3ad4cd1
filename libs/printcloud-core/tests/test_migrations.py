import asyncio

from printcloud.core.db.migrations import migrate
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
