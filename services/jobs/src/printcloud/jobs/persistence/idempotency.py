"""Queries of the idempotency keys. The caller's transaction holds the key's advisory lock from
`lock` until it commits, so two creates with one key never both pass the check for a stored one."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.database import rows_affected
from printcloud.jobs.domain.idempotency import RETENTION, StoredAnswer
from printcloud.jobs.persistence.tables import idempotency_keys

_c = idempotency_keys.c


def _lock_id(organization_id: uuid.UUID, key: str) -> int:
    digest = hashlib.sha256(b"idempotency\0" + organization_id.bytes + key.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


async def lock(session: AsyncSession, organization_id: uuid.UUID, key: str) -> bool:
    """False when another transaction is creating with this key right now."""
    taken = await session.execute(select(func.pg_try_advisory_xact_lock(_lock_id(organization_id, key))))
    return bool(taken.scalar_one())


async def find(session: AsyncSession, organization_id: uuid.UUID, key: str, now: datetime) -> StoredAnswer | None:
    query = select(_c.fingerprint, _c.response).where(
        _c.organization_id == organization_id, _c.key == key, _c.created_at > now - RETENTION
    )
    row = (await session.execute(query)).first()
    return StoredAnswer(row.fingerprint, bytes(row.response)) if row is not None else None


async def record(
    session: AsyncSession,
    organization_id: uuid.UUID,
    key: str,
    fingerprint: str,
    job_id: uuid.UUID,
    response: bytes,
    now: datetime,
) -> None:
    """Keeps the first answer; a record past its 24 hours that `purge` has not removed yet is replaced."""
    values = {
        "organization_id": organization_id,
        "key": key,
        "fingerprint": fingerprint,
        "job_id": job_id,
        "response": response,
        "created_at": now,
    }
    statement = insert(idempotency_keys).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=[_c.organization_id, _c.key],
        set_={name: statement.excluded[name] for name in ("fingerprint", "job_id", "response", "created_at")},
        where=_c.created_at <= now - RETENTION,
    )
    await session.execute(statement)


async def purge(session: AsyncSession, now: datetime) -> int:
    return await rows_affected(session, delete(idempotency_keys).where(_c.created_at <= now - RETENTION))
