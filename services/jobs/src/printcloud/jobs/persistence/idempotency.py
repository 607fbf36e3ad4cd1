"""Queries of the idempotency keys. The caller's transaction holds the key's advisory lock from
`lock` until it commits, so two creates with one key never both pass the check for a stored one.
The creating transaction is a driver transaction (`core.db.driver_transaction`), so these are
compiled statements."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

from sqlalchemy import BigInteger, bindparam, delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.compiled_reads import CompiledRead, Fields
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.database import Database, rows_affected
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.jobs.domain.idempotency import RETENTION, StoredAnswer
from printcloud.jobs.persistence.tables import idempotency_keys

_c = idempotency_keys.c


def _lock_id(organization_id: uuid.UUID, key: str) -> int:
    digest = hashlib.sha256(b"idempotency\0" + organization_id.bytes + key.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


_lock = CompiledRead.of(select(func.pg_try_advisory_xact_lock(bindparam("lock_id", type_=BigInteger)).label("taken")))
_find = CompiledRead.of(
    select(_c.fingerprint, _c.response).where(
        _c.organization_id == bindparam("organization_id"),
        _c.key == bindparam("key"),
        _c.created_at > bindparam("since"),
    )
)
_new = insert(idempotency_keys).values(
    {
        name: bindparam(name, type_=_c[name].type)
        for name in ("organization_id", "key", "fingerprint", "job_id", "response", "created_at")
    }
)
_record = CompiledWrite.of(
    _new.on_conflict_do_update(
        index_elements=[_c.organization_id, _c.key],
        set_={name: _new.excluded[name] for name in ("fingerprint", "job_id", "response", "created_at")},
        where=_c.created_at <= bindparam("expired_at"),
    )
)


async def lock(transaction: DriverTransaction, organization_id: uuid.UUID, key: str) -> bool:
    """False when another transaction is creating with this key right now."""
    taken = await transaction.fetchrow(_lock, lock_id=_lock_id(organization_id, key))
    return taken is not None and bool(taken.taken)


def _answer(row: Fields | None) -> StoredAnswer | None:
    return StoredAnswer(row.fingerprint, bytes(row.response)) if row is not None else None


async def find(
    reader: Database | DriverTransaction, organization_id: uuid.UUID, key: str, now: datetime
) -> StoredAnswer | None:
    """The answer kept for the key, read outside any transaction or in `reader`."""
    values = {"organization_id": organization_id, "key": key, "since": now - RETENTION}
    if isinstance(reader, Database):
        return _answer(await reader.fetch_one(_find, **values))
    return _answer(await reader.fetchrow(_find, **values))


async def record(
    transaction: DriverTransaction,
    organization_id: uuid.UUID,
    key: str,
    fingerprint: str,
    job_id: uuid.UUID,
    response: bytes,
    now: datetime,
) -> None:
    """Keeps the first answer; a record past its 24 hours that `purge` has not removed yet is replaced."""
    await transaction.execute(
        _record,
        organization_id=organization_id,
        key=key,
        fingerprint=fingerprint,
        job_id=job_id,
        response=response,
        created_at=now,
        expired_at=now - RETENTION,
    )


async def purge(session: AsyncSession, now: datetime) -> int:
    return await rows_affected(session, delete(idempotency_keys).where(_c.created_at <= now - RETENTION))
