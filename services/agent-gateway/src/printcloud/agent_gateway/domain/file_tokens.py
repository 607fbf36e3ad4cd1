"""Short-lived download tokens: an agent may fetch one job's file, for a few minutes.

A token is `<expiry unix seconds>.<computer id>.<signature>`; the signature is HMAC-SHA256 over
job id, computer id and expiry, so a token for one job or computer is useless for another.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass


@dataclass(frozen=True)
class FileGrant:
    job_id: str
    computer_id: str


def _signature(secret: str, job_id: str, computer_id: str, expires_at: int) -> str:
    signed = f"{job_id}\n{computer_id}\n{expires_at}".encode()
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def mint_token(secret: str, job_id: str, computer_id: str, expires_at: int) -> str:
    return f"{expires_at}.{computer_id}.{_signature(secret, job_id, computer_id, expires_at)}"


def verify_token(secret: str, job_id: str, token: str, now: float) -> FileGrant | None:
    """The grant the token carries, or None when it is malformed, forged or expired."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    expires_at, computer_id, signature = int(parts[0]), parts[1], parts[2]
    expected = _signature(secret, job_id, computer_id, expires_at)
    if not hmac.compare_digest(expected.encode(), signature.encode()) or expires_at < now:
        return None
    return FileGrant(job_id=job_id, computer_id=computer_id)
