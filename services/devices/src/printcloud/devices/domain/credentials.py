"""Agent credentials: random bearer tokens of which only the SHA-256 is kept."""

from __future__ import annotations

import hashlib
import secrets

CREDENTIAL_PREFIX = "pca_"


def mint_agent_credential() -> str:
    # The prefix lets secret scanners and operators recognise a leaked agent credential.
    return CREDENTIAL_PREFIX + secrets.token_urlsafe(32)


def hash_agent_credential(credential: str) -> str:
    return hashlib.sha256(credential.encode()).hexdigest()


def looks_like_agent_credential(credential: str) -> bool:
    return credential.startswith(CREDENTIAL_PREFIX) and len(credential) > len(CREDENTIAL_PREFIX)
