"""Sign-in codes and the request log that rate limits them, inside the caller's transaction."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.persistence.tables import sign_in_codes, sign_in_requests
from printcloud.core.ids import uuid7


@dataclass(frozen=True)
class StoredCode:
    id: str
    code_hash: str
    wrong_tries: int


async def requests_since(session: AsyncSession, subject: str, since: datetime) -> int:
    return int(
        await session.scalar(
            select(func.count())
            .select_from(sign_in_requests)
            .where(sign_in_requests.c.subject == subject, sign_in_requests.c.requested_at >= since)
        )
        or 0
    )


async def record_request(session: AsyncSession, subject: str) -> None:
    await session.execute(sign_in_requests.insert().values(subject=subject))


async def purge_before(session: AsyncSession, before: datetime) -> None:
    await session.execute(sign_in_requests.delete().where(sign_in_requests.c.requested_at < before))
    await session.execute(sign_in_codes.delete().where(sign_in_codes.c.expires_at < before))


async def replace_code(session: AsyncSession, email: str, code_hash: str, expires_at: datetime) -> None:
    """Stores a new code for the address and ends any it had."""
    await session.execute(
        update(sign_in_codes)
        .where(sign_in_codes.c.email == email, sign_in_codes.c.ended_at.is_(None))
        .values(ended_at=func.now())
    )
    await session.execute(
        sign_in_codes.insert().values(id=uuid7(), email=email, code_hash=code_hash, expires_at=expires_at)
    )


async def live_code(session: AsyncSession, email: str, now: datetime) -> StoredCode | None:
    """The address's usable code, locked until the transaction ends so two tries cannot race."""
    row = (
        await session.execute(
            select(sign_in_codes.c.id, sign_in_codes.c.code_hash, sign_in_codes.c.wrong_tries)
            .where(sign_in_codes.c.email == email, sign_in_codes.c.ended_at.is_(None), sign_in_codes.c.expires_at > now)
            .order_by(sign_in_codes.c.created_at.desc())
            .limit(1)
            .with_for_update()
        )
    ).one_or_none()
    return StoredCode(str(row.id), row.code_hash, row.wrong_tries) if row else None


async def record_wrong_try(session: AsyncSession, code_id: str, *, end: bool) -> None:
    values: dict[str, object] = {"wrong_tries": sign_in_codes.c.wrong_tries + 1}
    if end:
        values["ended_at"] = func.now()
    await session.execute(update(sign_in_codes).where(sign_in_codes.c.id == uuid.UUID(code_id)).values(**values))


async def end_code(session: AsyncSession, code_id: str) -> None:
    await session.execute(
        update(sign_in_codes).where(sign_in_codes.c.id == uuid.UUID(code_id)).values(ended_at=func.now())
    )
