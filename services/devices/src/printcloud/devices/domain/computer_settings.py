"""What `PATCH /v1/computers/{id}` may change: `name` and `enabled` (false disables the computer)."""

from __future__ import annotations

from printcloud.core.errors import invalid

MAX_COMPUTER_NAME_LENGTH = 255


def checked_name(name: str) -> str:
    stripped = name.strip()
    if not stripped or len(stripped) > MAX_COMPUTER_NAME_LENGTH:
        raise invalid(f"`name` must have 1 to {MAX_COMPUTER_NAME_LENGTH} characters.")
    return stripped
