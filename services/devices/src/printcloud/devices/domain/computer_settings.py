"""What `PATCH /v1/computers/{id}` may change: `name` and `enabled` (false disables the computer),
and the names a computer is enrolled with."""

from __future__ import annotations

from printcloud.contracts.errors import invalid
from printcloud.contracts.text import trimmed

MAX_COMPUTER_NAME_LENGTH = 255


def checked_name(name: str) -> str:
    stripped = trimmed(name)
    if not stripped or len(stripped) > MAX_COMPUTER_NAME_LENGTH:
        raise invalid(f"`name` must have 1 to {MAX_COMPUTER_NAME_LENGTH} characters.")
    return stripped


def enrolment_names(name: str, hostname: str) -> tuple[str, str]:
    """The name and hostname a new computer is enrolled with; one of them is required."""
    name, hostname = trimmed(name), trimmed(hostname)
    if not (name or hostname):
        raise invalid("A computer needs a name or a hostname.")
    if len(name) > MAX_COMPUTER_NAME_LENGTH or len(hostname) > MAX_COMPUTER_NAME_LENGTH:
        raise invalid(f"A computer's name and hostname have at most {MAX_COMPUTER_NAME_LENGTH} characters.")
    return name, hostname
