"""What one send attempt means for a delivery: its outcome and the delivery's next state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from printcloud.contracts.enums import DELIVERY_STATUSES
from printcloud.webhooks.domain.retry_schedule import wait_after

EXCERPT_CHARS = 2048
# UTF-8 needs at most 4 bytes a character; a few more let the decoder see the 2048th one whole.
EXCERPT_BYTES = EXCERPT_CHARS * 4 + 4

PENDING, RETRYING, SUCCEEDED, FAILED = DELIVERY_STATUSES
OPEN_STATUSES = (PENDING, RETRYING)


@dataclass(frozen=True)
class Outcome:
    """What the receiver did: `status_code` is None when no answer came (refused, timeout, error).
    `request_headers` are those the attempt was sent with, kept for the delivery log."""

    status_code: int | None
    excerpt: str
    request_headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    @classmethod
    def answered(cls, status_code: int, body: bytes, request_headers: Mapping[str, str] | None = None) -> Outcome:
        return cls(status_code, body.decode("utf-8", errors="replace")[:EXCERPT_CHARS], request_headers or {})

    @classmethod
    def no_answer(cls, error: str, request_headers: Mapping[str, str] | None = None) -> Outcome:
        return cls(None, error[:EXCERPT_CHARS], request_headers or {})


@dataclass(frozen=True)
class NextState:
    status: str
    next_attempt_at: datetime | None
    delivered_at: datetime | None


def after_attempt(attempt: int, outcome: Outcome, now: datetime, *, retry_scale: float) -> NextState:
    """The delivery's state once attempt number `attempt` ended with `outcome`."""
    if outcome.succeeded:
        return NextState(SUCCEEDED, None, now)
    wait = wait_after(attempt, scale=retry_scale)
    if wait is None:
        return NextState(FAILED, None, None)
    return NextState(RETRYING, now + timedelta(seconds=wait), None)
