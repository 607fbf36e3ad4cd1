"""The envelope of everything on Kafka: domain events and agent commands alike."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from printcloud.core.ids import new_id
from printcloud.core.timeutil import isoformat, utcnow

# The header that repeats a message's type, so that a consumer can pass over the messages it has no
# interest in without decoding them.
TYPE_HEADER = "printcloud-type"


@dataclass(frozen=True)
class Message:
    type: str
    organization_id: str
    mode: str
    data: dict[str, Any]
    id: str = field(default_factory=new_id)
    timestamp: str = field(default_factory=lambda: isoformat(utcnow()))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "timestamp": self.timestamp,
            "organizationId": self.organization_id,
            "mode": self.mode,
            "data": self.data,
        }

    def encode(self) -> bytes:
        return json.dumps(self.to_json(), separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Message:
        return cls(
            id=value["id"],
            type=value["type"],
            timestamp=value["timestamp"],
            organization_id=value["organizationId"],
            mode=value["mode"],
            data=value.get("data") or {},
        )

    @classmethod
    def decode(cls, raw: bytes) -> Message:
        return cls.from_json(json.loads(raw))
