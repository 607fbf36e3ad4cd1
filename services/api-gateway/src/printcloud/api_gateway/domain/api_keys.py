"""API keys: their format, how they are stored (hashed), and the scopes they may carry."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

MODES: tuple[str, ...] = ("live", "test")
SCOPES: tuple[str, ...] = ("read", "print", "admin")
# Enough of the key to recognise it in a listing without making it usable.
DISPLAY_PREFIX_LENGTH = 12
# Real keys are about 52 characters; anything far longer is not worth hashing.
MAX_KEY_LENGTH = 256


@dataclass(frozen=True)
class NewApiKey:
    """A freshly minted key: `secret` is shown once, only `key_hash` and `display_prefix` are stored."""

    secret: str
    key_hash: str
    display_prefix: str

    @property
    def last_four(self) -> str:
        return self.secret[-4:]


def key_prefix_for(mode: str) -> str:
    return f"svc_{mode}_"


def mint_api_key(mode: str) -> NewApiKey:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    secret = key_prefix_for(mode) + secrets.token_urlsafe(32)
    return NewApiKey(secret, hash_api_key(secret), secret[:DISPLAY_PREFIX_LENGTH])


def hash_api_key(secret: str) -> str:
    # The key carries 256 random bits, so a plain SHA-256 is enough and lets lookups use an index.
    return hashlib.sha256(secret.encode()).hexdigest()


def is_well_formed(secret: str) -> bool:
    """Cheap shape check that spares a database lookup for text that cannot be a key."""
    return len(secret) <= MAX_KEY_LENGTH and any(secret.startswith(key_prefix_for(mode)) for mode in MODES)


MAX_KEY_NAME = 100


def key_name(value: str) -> str:
    name = value.strip()
    if len(name) > MAX_KEY_NAME:
        raise ValueError(f"a key name is at most {MAX_KEY_NAME} characters")
    return name


def parse_scopes(text: str) -> tuple[str, ...]:
    """`read,print` -> ("read", "print"), in canonical order; raises ValueError naming a bad scope."""
    requested = {part.strip() for part in text.split(",") if part.strip()}
    if not requested:
        raise ValueError(f"at least one scope is required ({', '.join(SCOPES)})")
    unknown = sorted(requested - set(SCOPES))
    if unknown:
        raise ValueError(f"unknown scope {unknown[0]!r}; allowed: {', '.join(SCOPES)}")
    return tuple(scope for scope in SCOPES if scope in requested)
