"""One timestamp format for the whole public contract: ISO 8601 in UTC with a `Z` suffix."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


def isoformat(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def isoformat_or_none(value: datetime | None) -> str | None:
    return None if value is None else isoformat(value)


def parse_iso(value: str) -> datetime | None:
    """A timezone-aware datetime, or None when `value` is not ISO 8601 with a zone."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    try:
        # 0001-01-01T00:00:00+23:59 parses, but lies before the first instant UTC can name.
        parsed.astimezone(UTC)
    except OverflowError:
        return None
    return parsed
