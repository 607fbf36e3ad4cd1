"""Pairing codes: what an owner or an `admin` key makes to enrol computers without a key, and
the record of the computers each code enrolled (docs/api.md, "Pairing codes")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from printcloud.contracts.base import Contract, Timestamp, Uuid
from printcloud.contracts.enums import Mode, PairingCodeState
from printcloud.contracts.resources import Page

CODE_PATTERN = "^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$"


class PairingCode(Contract):
    id: Uuid
    hint: str = Field(description="The code's first group, to tell codes apart; the rest is never shown again")
    description: str
    mode: Mode
    maxUses: int = Field(ge=1, le=1000)
    uses: int = Field(ge=0, description="Computers the code has enrolled")
    usesLeft: int = Field(ge=0)
    state: PairingCodeState
    expiresAt: Timestamp
    revokedAt: Timestamp | None
    createdAt: Timestamp


# What a code's message does not carry but the representation shows, by the field's name.
PAIRING_CODE_DERIVED: dict[str, Callable[[Any], Any]] = {"usesLeft": lambda code: max(0, code.max_uses - code.uses)}


class CreatedPairingCode(PairingCode):
    code: str = Field(
        pattern=CODE_PATTERN, description="Shown in this response only: give it to whoever enrols the computers"
    )


class PairingCodeEnrollment(Contract):
    id: Uuid
    computerId: Uuid = Field(description="The computer the code enrolled (it may have been deleted since)")
    name: str = Field(description="The computer's name when it enrolled")
    hostname: str
    clientAddress: str = Field(description="The address the agent enrolled from, as the API saw it")
    enrolledAt: Timestamp


class PairingCodePage(Page[PairingCode]):
    pass


class PairingCodeEnrollmentPage(Page[PairingCodeEnrollment]):
    pass
