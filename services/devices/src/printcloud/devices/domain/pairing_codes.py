"""Pairing codes: short codes an owner or an admin key makes, which agents exchange for their
computer's credential (docs/api.md, "Pairing codes").

A code is 12 characters of Crockford's base32 (no I, L, O or U), shown in groups of four
(`7K4M-9QXP-3T8D`): 60 bits, typed by a person. Case, spaces and dashes do not matter, and the
letters people confuse with digits (O, I, L) are read as the digits. Only a keyed hash of the
normalised code is stored, and it is the lookup key: a code is found by one index lookup, and a
copy of the database alone does not let anyone try codes offline.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from printcloud.contracts.errors import ApiError, invalid
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import PairingCodeCreate

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 12
GROUP_LENGTH = 4
# The first group, shown in lists so an owner can tell codes apart (the rest stays secret).
HINT_LENGTH = 4
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})

DEFAULT_LIFETIME = timedelta(hours=24)
MIN_LIFETIME = timedelta(minutes=1)
MAX_LIFETIME = timedelta(days=7)
DEFAULT_MAX_USES = 1
MAX_USES = 1000
MAX_DESCRIPTION_LENGTH = 200
# Codes that can still enrol, per organization and mode: enough for staged rollouts, and a bound
# on how many live codes a guesser could hit (docs/api.md, "How hard a code is to guess").
MAX_LIVE_CODES = 100

_EXPIRE_AFTER = public_name(PairingCodeCreate, lambda create: create.expireAfter)
_MAX_USES = public_name(PairingCodeCreate, lambda create: create.maxUses)
_DESCRIPTION = public_name(PairingCodeCreate, lambda create: create.description)

ACTIVE, EXPIRED, USED_UP, REVOKED = "active", "expired", "used_up", "revoked"

# One answer for every code that does not enrol: telling wrong, expired, used-up and revoked
# codes apart would tell a guesser which codes exist.
REFUSED_MESSAGE = (
    "This pairing code is wrong, has expired, was used up or was revoked. Check it, or ask an owner of the "
    "organization for a new one."
)

_KEY_PURPOSE = b"printcloud devices: pairing code lookup keys v1"


def pairing_key(server_secret: str) -> bytes:
    """The HMAC key of lookup keys, derived from a server secret and bound to this one use."""
    return hmac.new(server_secret.encode(), _KEY_PURPOSE, hashlib.sha256).digest()


def normalised(text: str) -> str:
    return text.upper().translate(_READ_AS)


def formatted(code: str) -> str:
    return "-".join(code[i : i + GROUP_LENGTH] for i in range(0, len(code), GROUP_LENGTH))


def lookup_key(key: bytes, text: str) -> str:
    """What a code is stored and found by. Any text has one, so every try costs the same lookup."""
    return hmac.new(key, normalised(text).encode(), hashlib.sha256).hexdigest()


def hint_of(text: str) -> str:
    return normalised(text)[:HINT_LENGTH]


def refused() -> ApiError:
    return ApiError("unauthorized", REFUSED_MESSAGE)


@dataclass(frozen=True)
class NewPairingCode:
    """`code` is shown once; only `lookup_key` and `hint` are stored."""

    code: str
    lookup_key: str
    hint: str


def mint_pairing_code(key: bytes) -> NewPairingCode:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return NewPairingCode(formatted(raw), lookup_key(key, raw), raw[:HINT_LENGTH])


@dataclass(frozen=True)
class PairingCodeTerms:
    expires_at: datetime
    max_uses: int
    description: str


def checked_terms(
    now: datetime, expire_after_seconds: int | None, max_uses: int | None, description: str
) -> PairingCodeTerms:
    """The terms of a new code, with the defaults for what the caller left out."""
    lifetime = DEFAULT_LIFETIME if expire_after_seconds is None else timedelta(seconds=expire_after_seconds)
    if not MIN_LIFETIME <= lifetime <= MAX_LIFETIME:
        raise invalid(
            f"`{_EXPIRE_AFTER}` must be from {int(MIN_LIFETIME.total_seconds())} to "
            f"{int(MAX_LIFETIME.total_seconds())} seconds."
        )
    uses = DEFAULT_MAX_USES if max_uses is None else max_uses
    if not 1 <= uses <= MAX_USES:
        raise invalid(f"`{_MAX_USES}` must be from 1 to {MAX_USES}.")
    description = description.strip()
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise invalid(f"`{_DESCRIPTION}` has at most {MAX_DESCRIPTION_LENGTH} characters.")
    return PairingCodeTerms(now + lifetime, uses, description)


def too_many_live_codes() -> ApiError:
    return ApiError(
        "conflict",
        f"This organization has {MAX_LIVE_CODES} pairing codes that can still enrol computers in this mode; "
        "revoke one, or give one code more uses.",
    )


def code_state(*, revoked: bool, uses: int, max_uses: int, expires_at: datetime, now: datetime) -> str:
    if revoked:
        return REVOKED
    if uses >= max_uses:
        return USED_UP
    if expires_at <= now:
        return EXPIRED
    return ACTIVE
