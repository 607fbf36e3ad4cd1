"""Short-lived download tokens: an agent may fetch one job's file, for a few minutes.

A token is `<expiry unix seconds>.<computer id>.<organization id>.<mode>.<signature>`; the
signature is HMAC-SHA256 over the job id and every other part, so a token for one job or computer
is useless for another. The organization and mode let the gateway ask devices, in scope, whether
the computer still exists and is enabled when the token is used: deleting or disabling a computer
ends its outstanding tokens at once rather than when they expire.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

# Unix seconds have 10 digits until the year 2286; a longer number is no expiry of ours, and
# parsing it before the signature check would let anyone make the gateway convert huge numbers.
MAX_EXPIRY_DIGITS = 12


@dataclass(frozen=True)
class ComputerScope:
    computer_id: str
    organization_id: str
    mode: str


@dataclass(frozen=True)
class FileGrant:
    job_id: str
    computer: ComputerScope


def _signature(secret: str, job_id: str, computer: ComputerScope, expires_at: str) -> str:
    signed = f"{job_id}\n{computer.computer_id}\n{computer.organization_id}\n{computer.mode}\n{expires_at}".encode()
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def mint_token(secret: str, job_id: str, computer: ComputerScope, expires_at: int) -> str:
    signature = _signature(secret, job_id, computer, str(expires_at))
    return f"{expires_at}.{computer.computer_id}.{computer.organization_id}.{computer.mode}.{signature}"


def verify_token(secret: str, job_id: str, token: str, now: float) -> FileGrant | None:
    """The grant the token carries, or None when it is malformed, forged or expired."""
    parts = token.split(".")
    if len(parts) != 5:
        return None
    expires_at, computer_id, organization_id, mode, signature = parts
    if not (expires_at.isascii() and expires_at.isdigit() and len(expires_at) <= MAX_EXPIRY_DIGITS):
        return None
    computer = ComputerScope(computer_id, organization_id, mode)
    expected = _signature(secret, job_id, computer, expires_at)
    if not hmac.compare_digest(expected.encode(), signature.encode()) or int(expires_at) < now:
        return None
    return FileGrant(job_id=job_id, computer=computer)
