"""Pairing codes: making, listing and revoking them (owners and admin keys, through the
api-gateway), and enrolling a computer with one (an agent). One transaction per use case.

Enrolling takes the code's use and creates the computer in one transaction, so a code with one
use left enrols exactly one of the agents racing for it. A wrong try is committed before its
error is raised, so that raising does not roll back the failure it must count.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.computer_settings import enrolment_names
from printcloud.devices.domain.pairing_attempts import AttemptLimits, attempt_subjects
from printcloud.devices.domain.pairing_codes import (
    MAX_LIVE_CODES,
    checked_terms,
    lookup_key,
    mint_pairing_code,
    refused,
    too_many_live_codes,
)
from printcloud.devices.persistence import pairing_codes
from printcloud.devices.persistence.rows import ComputerRow, EnrollmentRow, PairingCodeRow
from printcloud.devices.use_cases.computers import create_enrolled_computer

PAIRING_CODE = "pairing code"


@dataclass(frozen=True)
class CreatedPairingCode:
    row: PairingCodeRow
    code: str  # shown once


@dataclass
class PairingCodes:
    db: Database
    key: bytes = field(repr=False)
    limits: AttemptLimits = field(default_factory=AttemptLimits)

    async def create(
        self, scope: Scope, expire_after_seconds: int | None, max_uses: int | None, description: str
    ) -> CreatedPairingCode:
        now = utcnow()
        terms = checked_terms(now, expire_after_seconds, max_uses, description)
        new = mint_pairing_code(self.key)
        async with self.db.transaction() as session:
            await pairing_codes.lock_scope_codes(session, scope)
            if await pairing_codes.count_live_codes(session, scope, now) >= MAX_LIVE_CODES:
                raise too_many_live_codes()
            row = await pairing_codes.insert_code(session, scope, new, terms, now)
        return CreatedPairingCode(row, new.code)

    async def list(self, scope: Scope, page: PageRequest) -> Page[PairingCodeRow]:
        async with self.db.read() as session:
            return await pairing_codes.list_codes(session, scope, page)

    async def get(self, scope: Scope, code_id: uuid.UUID) -> PairingCodeRow:
        async with self.db.read() as session:
            return _found(await pairing_codes.get_code(session, scope, code_id))

    async def revoke(self, scope: Scope, code_id: uuid.UUID) -> PairingCodeRow:
        """Revokes a code at once; it stays listed (state `revoked`) with the computers it enrolled."""
        async with self.db.transaction() as session:
            return _found(await pairing_codes.revoke_code(session, scope, code_id, utcnow()))

    async def list_enrollments(self, scope: Scope, code_id: uuid.UUID, page: PageRequest) -> Page[EnrollmentRow]:
        async with self.db.read() as session:
            _found(await pairing_codes.get_code(session, scope, code_id))
            return await pairing_codes.list_enrollments(session, scope, code_id, page)

    async def enroll(
        self, code_text: str, name: str, hostname: str, client_address: str, now: datetime | None = None
    ) -> tuple[ComputerRow, str]:
        """The computer a code enrols and its credential (plaintext), exactly as key-based
        enrolment gives them; `unauthorized` for any code that cannot enrol, `rate_limited` past
        the limits on wrong codes."""
        enrolment_names(name, hostname)  # a bad name is the caller's mistake, not a wrong code
        now = now or utcnow()
        subjects = attempt_subjects(client_address, code_text)
        since = self.limits.window_start(now)
        failure: ApiError | None = None
        async with self.db.transaction() as session:
            await pairing_codes.lock_subject(session, subjects.address)
            limited = self.limits.refusal(
                now,
                await pairing_codes.recent_failures(session, subjects.address, since),
                await pairing_codes.recent_failures(session, subjects.prefix, since),
            )
            if limited is not None:
                raise limited
            code = await pairing_codes.redeem(session, lookup_key(self.key, code_text), now)
            if code is None:
                await pairing_codes.record_failure(session, subjects, now)
                failure = refused()
            else:
                scope = Scope(code.organization_id, code.mode)
                computer, credential = await create_enrolled_computer(session, scope, name, hostname)
                await pairing_codes.insert_enrollment(session, code.id, computer, client_address, now)
        if failure is not None:
            raise failure
        return computer, credential

    async def purge_failures(self, now: datetime) -> int:
        """Forgets the failures older than the window, which no limit counts any more."""
        async with self.db.transaction() as session:
            return await pairing_codes.purge_failures(session, self.limits.window_start(now))


def _found(row: PairingCodeRow | None) -> PairingCodeRow:
    if row is None:
        raise not_found(PAIRING_CODE)
    return row
