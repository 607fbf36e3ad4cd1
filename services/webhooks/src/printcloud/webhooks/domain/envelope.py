"""The request body of a delivery, which is also what the feed shows of an event."""

from __future__ import annotations

import json
import uuid
from typing import Any


def envelope(event_id: uuid.UUID, event_type: str, timestamp: str, mode: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(event_id), "type": event_type, "timestamp": timestamp, "mode": mode, "data": data}


def body_bytes(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent and signed; the same payload always gives the same bytes."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
