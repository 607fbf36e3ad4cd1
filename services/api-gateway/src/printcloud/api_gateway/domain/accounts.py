"""Rules for organizations and their users, applied before anything is stored."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ORGANIZATION_NAME = 255
# Deliberately loose: the address is confirmed by the e-mailed sign-in code, not by a regex.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class Organization:
    id: str
    name: str


def organization_name(value: str) -> str:
    name = value.strip()
    if not 1 <= len(name) <= MAX_ORGANIZATION_NAME:
        raise ValueError(f"organization name must be 1 to {MAX_ORGANIZATION_NAME} characters")
    return name


def normalize_email(value: str) -> str:
    # One user per mailbox regardless of how the address was typed.
    email = value.strip().lower()
    if not _EMAIL.match(email):
        raise ValueError(f"not an e-mail address: {value!r}")
    return email
