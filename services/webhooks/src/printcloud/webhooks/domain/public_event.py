"""A domain event of the public contract, as the consumer read it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from printcloud.core.scope import Scope
from printcloud.core.timeutil import parse_iso


@dataclass(frozen=True)
class PublicEvent:
    message_id: uuid.UUID
    scope: Scope
    type: str
    timestamp: str
    data: dict[str, Any]

    def occurred_at(self, now: datetime) -> datetime:
        """When it happened, by its timestamp; `now` for a timestamp that does not parse."""
        return parse_iso(self.timestamp) or now
