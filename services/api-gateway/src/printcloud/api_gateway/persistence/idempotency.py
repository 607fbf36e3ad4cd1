"""Idempotency records in PostgreSQL: one row per (organization, key), so every gateway replica
sees the same claim and the primary key settles concurrent first requests."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert

from printcloud.api_gateway.domain.idempotency import IN_PROGRESS_LEASE, RETENTION, StoredResponse
from printcloud.api_gateway.persistence.tables import idempotency_keys
from printcloud.core.db import Database


class IdempotencyRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim(self, organization_id: str, key: str, fingerprint: str) -> tuple[str, StoredResponse | None] | None:
        """None when this request now holds the key; else the holder's fingerprint and stored response.

        A record past its 24 hours, or an in-progress claim past its lease, is taken over.
        """
        org = uuid.UUID(organization_id)
        table = idempotency_keys
        now = func.now()
        claim = insert(table).values(
            organization_id=org, key=key, fingerprint=fingerprint, created_at=now, locked_until=now + IN_PROGRESS_LEASE
        )
        claim = claim.on_conflict_do_update(
            index_elements=[table.c.organization_id, table.c.key],
            set_={
                "fingerprint": claim.excluded.fingerprint,
                "status": None,
                "response": None,
                "created_at": now,
                "locked_until": claim.excluded.locked_until,
            },
            where=or_(
                table.c.created_at < now - RETENTION,
                table.c.status.is_(None) & (table.c.locked_until < now),
            ),
        ).returning(table.c.key)
        async with self.db.transaction() as session:
            if (await session.execute(claim)).first() is not None:
                return None
            row = (
                await session.execute(
                    select(table.c.fingerprint, table.c.status, table.c.response).where(
                        table.c.organization_id == org, table.c.key == key
                    )
                )
            ).one()
        stored = StoredResponse(row.status, row.response) if row.status is not None else None
        return row.fingerprint, stored

    async def complete(self, organization_id: str, key: str, status: int, body: Any) -> None:
        async with self.db.transaction() as session:
            await session.execute(
                update(idempotency_keys)
                .where(idempotency_keys.c.organization_id == uuid.UUID(organization_id), idempotency_keys.c.key == key)
                .values(status=status, response=body)
            )

    async def release(self, organization_id: str, key: str) -> None:
        async with self.db.transaction() as session:
            await session.execute(
                delete(idempotency_keys).where(
                    idempotency_keys.c.organization_id == uuid.UUID(organization_id),
                    idempotency_keys.c.key == key,
                    idempotency_keys.c.status.is_(None),
                )
            )

    async def purge_expired(self) -> int:
        async with self.db.transaction() as session:
            result = await session.execute(
                delete(idempotency_keys).where(idempotency_keys.c.created_at < func.now() - RETENTION)
            )
        return result.rowcount
