"""Rules for organizations and their users, applied before anything is stored."""

from __future__ import annotations

from dataclasses import dataclass

MAX_ORGANIZATION_NAME = 255


@dataclass(frozen=True)
class Organization:
    id: str
    name: str


def organization_name(value: str) -> str:
    name = value.strip()
    if not 1 <= len(name) <= MAX_ORGANIZATION_NAME:
        raise ValueError(f"organization name must be 1 to {MAX_ORGANIZATION_NAME} characters")
    return name
