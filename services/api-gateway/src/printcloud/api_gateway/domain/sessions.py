"""Dashboard sessions: tokens, their lifetimes, and the CSRF token derived from each."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

COOKIE_NAME = "printcloud_session"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
# Like keys' last use: refreshing the idle clock on every request would turn reads into writes.
LAST_SEEN_PRECISION = timedelta(minutes=1)


@dataclass(frozen=True)
class NewSession:
    """`token` goes into the cookie once; only `token_hash` is stored."""

    token: str
    token_hash: str


def mint_session() -> NewSession:
    token = secrets.token_urlsafe(32)
    return NewSession(token, hash_token(token))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_well_formed(token: str) -> bool:
    return 20 <= len(token) <= 100


def csrf_token(session_token: str) -> str:
    """Derived from the session token, so it needs no storage, changes with every session, and
    cannot be computed by a page that cannot read the HttpOnly cookie."""
    return hmac.new(session_token.encode(), b"printcloud-csrf", hashlib.sha256).hexdigest()


def csrf_matches(session_token: str, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(csrf_token(session_token), presented)


@dataclass(frozen=True)
class Lifetimes:
    idle: timedelta
    absolute: timedelta

    def is_live(self, now: datetime, last_seen_at: datetime, expires_at: datetime) -> bool:
        return now < expires_at and now < last_seen_at + self.idle
