"""Reads and writes of pairing codes, their enrolments and the failure log, inside the caller's
transaction. Codes are scoped by organization and mode like every tenant row, except where an
agent's code is redeemed: the code itself names its organization and mode."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle

from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.devices.domain.pairing_attempts import AttemptSubjects, RecentFailures
from printcloud.devices.domain.pairing_codes import NewPairingCode, PairingCodeTerms
from printcloud.devices.persistence.rows import ComputerRow, EnrollmentRow, PairingCodeRow, RedeemedCode, page_of
from printcloud.devices.persistence.tables import pairing_code_enrollments, pairing_codes, pairing_failures

_code: Bundle[Any] = Bundle("pairing_code", *pairing_codes.c)
_enrollment: Bundle[Any] = Bundle("enrollment", *pairing_code_enrollments.c)


def _code_in(scope: Scope) -> ColumnElement[bool]:
    return and_(pairing_codes.c.organization_id == scope.organization_id, pairing_codes.c.mode == scope.mode)


async def insert_code(
    session: AsyncSession, scope: Scope, new: NewPairingCode, terms: PairingCodeTerms, now: datetime
) -> PairingCodeRow:
    inserted = (
        await session.execute(
            pairing_codes.insert()
            .values(
                id=uuid7(),
                organization_id=scope.organization_id,
                mode=scope.mode,
                lookup_key=new.lookup_key,
                hint=new.hint,
                description=terms.description,
                max_uses=terms.max_uses,
                uses=0,
                expires_at=terms.expires_at,
                created_at=now,
            )
            .returning(*pairing_codes.c)
        )
    ).one()
    return PairingCodeRow.of(inserted)


async def lock_scope_codes(session: AsyncSession, scope: Scope) -> None:
    """Serialises creations in one organization and mode, so the live-code limit holds exactly."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtextextended(:name, 0))"),
        {"name": f"devices.pairing_codes:{scope.organization_id}:{scope.mode}"},
    )


async def count_live_codes(session: AsyncSession, scope: Scope, now: datetime) -> int:
    query = (
        select(func.count())
        .select_from(pairing_codes)
        .where(
            _code_in(scope),
            pairing_codes.c.revoked_at.is_(None),
            pairing_codes.c.expires_at > now,
            pairing_codes.c.uses < pairing_codes.c.max_uses,
        )
    )
    return int(await session.scalar(query) or 0)


async def list_codes(session: AsyncSession, scope: Scope, page: PageRequest) -> Page[PairingCodeRow]:
    found = await fetch_page(session, select(_code).where(_code_in(scope)), pairing_codes.c.id, page)
    return page_of(found, PairingCodeRow.of)


async def get_code(session: AsyncSession, scope: Scope, code_id: uuid.UUID) -> PairingCodeRow | None:
    query = select(pairing_codes).where(_code_in(scope), pairing_codes.c.id == code_id)
    row = (await session.execute(query)).first()
    return None if row is None else PairingCodeRow.of(row)


async def revoke_code(session: AsyncSession, scope: Scope, code_id: uuid.UUID, now: datetime) -> PairingCodeRow | None:
    """Revokes the code (a revoked one keeps its first revocation time); None when not in scope."""
    row = (
        await session.execute(
            update(pairing_codes)
            .where(_code_in(scope), pairing_codes.c.id == code_id)
            .values(revoked_at=func.coalesce(pairing_codes.c.revoked_at, now))
            .returning(*pairing_codes.c)
        )
    ).first()
    return None if row is None else PairingCodeRow.of(row)


async def redeem(session: AsyncSession, lookup_key: str, now: datetime) -> RedeemedCode | None:
    """Takes one use of the live code with this lookup key; None when there is none to take.

    One statement for every outcome: a wrong, expired, used-up or revoked code costs the same.
    Two agents racing for a code's last use both reach its row; the second waits for the first
    to commit, then finds it used up (PostgreSQL re-checks the condition on the new row).
    """
    row = (
        await session.execute(
            update(pairing_codes)
            .where(
                pairing_codes.c.lookup_key == lookup_key,
                pairing_codes.c.revoked_at.is_(None),
                pairing_codes.c.expires_at > now,
                pairing_codes.c.uses < pairing_codes.c.max_uses,
            )
            .values(uses=pairing_codes.c.uses + 1)
            .returning(pairing_codes.c.id, pairing_codes.c.organization_id, pairing_codes.c.mode)
        )
    ).first()
    return None if row is None else RedeemedCode.of(row)


async def insert_enrollment(
    session: AsyncSession, code_id: uuid.UUID, computer: ComputerRow, client_address: str, now: datetime
) -> None:
    await session.execute(
        pairing_code_enrollments.insert().values(
            id=uuid7(),
            pairing_code_id=code_id,
            computer_id=computer.id,
            organization_id=computer.organization_id,
            mode=computer.mode,
            name=computer.name,
            hostname=computer.hostname,
            client_address=client_address,
            enrolled_at=now,
        )
    )


async def list_enrollments(
    session: AsyncSession, scope: Scope, code_id: uuid.UUID, page: PageRequest
) -> Page[EnrollmentRow]:
    query = select(_enrollment).where(
        pairing_code_enrollments.c.organization_id == scope.organization_id,
        pairing_code_enrollments.c.mode == scope.mode,
        pairing_code_enrollments.c.pairing_code_id == code_id,
    )
    return page_of(await fetch_page(session, query, pairing_code_enrollments.c.id, page), EnrollmentRow.of)


# --- Failures ------------------------------------------------------------------------------------


async def lock_subject(session: AsyncSession, subject: str) -> None:
    """Serialises the attempts of one subject, so its limit cannot be overrun by a burst."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtextextended(:name, 0))"), {"name": f"devices.pairing:{subject}"}
    )


async def recent_failures(session: AsyncSession, subject: str, since: datetime) -> RecentFailures:
    row = (
        await session.execute(
            select(func.count(), func.min(pairing_failures.c.failed_at)).where(
                pairing_failures.c.subject == subject, pairing_failures.c.failed_at > since
            )
        )
    ).one()
    return RecentFailures(int(row[0]), row[1])


async def record_failure(session: AsyncSession, subjects: AttemptSubjects, now: datetime) -> None:
    await session.execute(
        pairing_failures.insert(),
        [{"subject": subjects.address, "failed_at": now}, {"subject": subjects.prefix, "failed_at": now}],
    )


async def purge_failures(session: AsyncSession, before: datetime) -> int:
    result = await session.execute(pairing_failures.delete().where(pairing_failures.c.failed_at <= before))
    return int(getattr(result, "rowcount", 0) or 0)
