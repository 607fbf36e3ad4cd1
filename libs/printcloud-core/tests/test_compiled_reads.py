"""Compiled reads against a real PostgreSQL: the rows and pages of a SELECT sent by the driver are
those SQLAlchemy reads, and the statement is traced without its values."""

from __future__ import annotations

import secrets
import uuid

import pytest
from opentelemetry.trace import SpanKind
from sqlalchemy import Column, DateTime, MetaData, String, Table, bindparam, insert, select, text
from sqlalchemy.dialects.postgresql import JSONB, UUID

from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.database import Database
from printcloud.core.db.paging import PagedRead, PageRequest
from printcloud.core.ids import uuid7
from printcloud.core.timeutil import utcnow
from tests.support.spans import RecordedSpans

SCHEMA = "compiled_reads_test"

_metadata = MetaData(schema=SCHEMA)
items = Table(
    "items",
    _metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("owner", String, nullable=False),
    Column("facts", JSONB, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
_of_owner = select(items).where(items.c.owner == bindparam("owner"))


async def _items(db: Database, owner: str, count: int) -> list[uuid.UUID]:
    async with db.transaction() as session:
        await session.run_sync(lambda sync: _metadata.create_all(sync.connection(), checkfirst=True))
        ids = [uuid7() for _ in range(count)]
        for n, item_id in enumerate(ids):
            facts = {"n": n, "papers": [{"name": "A4"}]}
            await session.execute(insert(items).values(id=item_id, owner=owner, facts=facts, created_at=utcnow()))
    return ids


async def test_a_compiled_read_gives_the_rows_sqlalchemy_gives_read_as_attributes(db: Database) -> None:
    ids = await _items(db, "acme", 3)
    await _items(db, "other", 2)
    read = CompiledRead.of(_of_owner.order_by(items.c.id))
    rows = await db.fetch(read, owner="acme")
    async with db.read() as session:
        expected = (await session.execute(_of_owner.order_by(items.c.id), {"owner": "acme"})).all()
    assert [row.id for row in rows] == ids
    assert [(r.id, r.owner, r.facts, r.created_at) for r in rows] == [tuple(r) for r in expected]
    assert rows[1].facts == {"n": 1, "papers": [{"name": "A4"}]}
    with pytest.raises(AttributeError):
        _ = rows[0].no_such_column


def test_a_compiled_read_takes_every_value_by_name() -> None:
    with pytest.raises(ValueError, match="bindparam"):
        CompiledRead.of(select(items).where(items.c.owner == "acme"))
    read = CompiledRead.of(select(items).where(items.c.owner == bindparam("owner"), items.c.id == bindparam("id")))
    assert read.parameters == ("owner", "id")
    assert read.arguments({"id": 1, "owner": "acme"}) == ["acme", 1]
    with pytest.raises(TypeError, match="id"):
        read.arguments({"owner": "acme"})


@pytest.mark.parametrize("direction", ["asc", "desc"])
async def test_pages_of_a_compiled_read_follow_the_paging_rules(db: Database, direction: str) -> None:
    ids = sorted(await _items(db, "acme", 7), reverse=direction == "desc")
    await _items(db, "other", 2)
    paged = PagedRead(_of_owner, items.c.id)
    page = PageRequest(limit=3, dir=direction)
    seen: list[list[uuid.UUID]] = []
    while True:
        read = await paged.fetch(db, page, owner="acme")
        seen.append([row.id for row in read.items])
        assert read.next_cursor == str(seen[-1][-1])
        if not read.has_more:
            break
        page = PageRequest(limit=3, dir=direction, after=uuid.UUID(read.next_cursor))
    assert seen == [ids[0:3], ids[3:6], ids[6:7]]
    past_the_end = await paged.fetch(db, PageRequest(limit=3, dir=direction, after=ids[-1]), owner="acme")
    assert (past_the_end.items, past_the_end.has_more, past_the_end.next_cursor) == ([], False, str(ids[-1]))


async def test_a_compiled_read_is_traced_without_its_values(db: Database, spans: RecordedSpans) -> None:
    await _items(db, "acme", 1)
    secret = f"s3cret-{secrets.token_hex(8)}"
    assert await db.fetch(CompiledRead.of(_of_owner), owner=secret) == []
    traced = [span for span in spans.named("SELECT") if span.kind is SpanKind.CLIENT]
    assert traced and f"{SCHEMA}.items" in str((traced[-1].attributes or {})["db.query.text"])
    assert all(secret not in str(value) for s in spans.all() for value in (s.attributes or {}).values())


async def test_a_failed_compiled_read_ends_its_span_as_an_error(db: Database, spans: RecordedSpans) -> None:
    async with db.transaction() as session:
        await session.execute(text(f"DROP TABLE IF EXISTS {SCHEMA}.items"))
    with pytest.raises(Exception, match="items"):
        await db.fetch(CompiledRead.of(_of_owner), owner="acme")
    failed = [span for span in spans.named("SELECT") if not span.status.is_ok]
    assert failed and (failed[-1].attributes or {})["error.type"] == "UndefinedTableError"
