"""The database layer keeps statement parameters out of the errors that get logged."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from printcloud.core.db import Database

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
