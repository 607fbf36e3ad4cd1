"""The database layer keeps statement parameters out of the errors that get logged."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from printcloud.core.db.database import Database

SCHEMA = "core_db_test"
SECRET = "whsec_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1sb2dnZWQ"


async def test_a_failed_statement_does_not_carry_its_parameters(db: Database, caplog: pytest.LogCaptureFixture) -> None:
    async with db.transaction() as session:
        await session.execute(text(f"CREATE TABLE {SCHEMA}.endpoints (secret text)"))
    logger = logging.getLogger("test")
    with pytest.raises(DBAPIError) as failed:
        async with db.transaction() as session:
            # PostgreSQL refuses a NUL byte in text: the error comes back with the statement.
            await session.execute(text(f"INSERT INTO {SCHEMA}.endpoints VALUES (:secret)"), {"secret": SECRET + "\x00"})
    logger.error("insert failed", exc_info=failed.value)
    assert "INSERT INTO" in str(failed.value)
    assert SECRET not in str(failed.value)
    assert SECRET not in caplog.text


async def test_a_read_runs_outside_a_transaction(db: Database) -> None:
    """No BEGIN and no ROLLBACK around a read: each statement is a transaction of its own, so two
    statements of one read start two transactions (one would share its start time)."""
    async with db.read() as session:
        first = (await session.execute(text("SELECT transaction_timestamp()"))).scalar_one()
        second = (await session.execute(text("SELECT transaction_timestamp()"))).scalar_one()
    assert second > first


async def test_a_transaction_after_a_read_still_is_one(db: Database) -> None:
    """Reads and transactions share the pool: a connection a read used comes back transactional."""
    async with db.read() as session:
        await session.execute(text("SELECT 1"))
    async with db.transaction() as session:
        first = (await session.execute(text("SELECT transaction_timestamp()"))).scalar_one()
        second = (await session.execute(text("SELECT transaction_timestamp()"))).scalar_one()
    assert second == first


async def test_a_one_statement_change_is_committed_by_itself(db: Database) -> None:
    """No BEGIN and no COMMIT: the statement is its own transaction, visible to others once it ends,
    even while the session that ran it is still open."""
    async with db.transaction() as session:
        await session.execute(text(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.claims (id int, leased boolean)"))
        await session.execute(text(f"INSERT INTO {SCHEMA}.claims VALUES (1, false)"))
    async with db.one_statement() as session:
        claimed = await session.execute(text(f"UPDATE {SCHEMA}.claims SET leased = true WHERE id = 1 RETURNING id"))
        assert claimed.scalar_one() == 1
        async with db.read() as other:
            assert (await other.execute(text(f"SELECT leased FROM {SCHEMA}.claims WHERE id = 1"))).scalar_one()
