"""Webhook signatures against an independent implementation of Standard Webhooks (the
`standardwebhooks` package), both ways, and the typed events a receiver gets."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from standardwebhooks import Webhook

from printcloud_sdk import WebhookVerificationError, models, verify_webhook
from printcloud_sdk.webhooks import new_secret, signed_headers

PING: dict[str, Any] = {
    "id": "7d1f5c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f", "type": "ping", "timestamp": "2026-11-26T08:00:00+00:00",
    "mode": "test", "data": {},
}  # fmt: skip
UPDATED: dict[str, Any] = {
    "id": "7d1f5c1e-2a3b-4c5d-8e9f-0a1b2c3d4e60", "type": "printer.updated", "timestamp": "2026-11-26T08:00:00+00:00",
    "mode": "live", "data": {"id": "p", "computerId": "c", "state": "online", "stateReasons": ["toner-low"],
             "stateDetail": "Toner low", "changes": {"enabled": {"from": True, "to": False}}},
}  # fmt: skip


def _their_headers(secret: str, message_id: str, body: str, when: datetime) -> dict[str, str]:
    signature = Webhook(secret).sign(message_id, when, body)
    return {"webhook-id": message_id, "webhook-timestamp": str(int(when.timestamp())), "webhook-signature": signature}


def test_a_delivery_signed_by_standard_webhooks_verifies_and_is_typed() -> None:
    secret = new_secret()
    body = json.dumps(UPDATED)
    event = verify_webhook(secret, body.encode(), _their_headers(secret, UPDATED["id"], body, datetime.now(UTC)))
    assert isinstance(event, models.PrinterUpdatedEvent)
    assert event.data.changes["enabled"].from_ is True and event.mode == "live"


def test_what_the_sdk_signs_standard_webhooks_verifies() -> None:
    secret = new_secret()
    body = json.dumps(PING).encode()
    headers = signed_headers(secret, PING["id"], body)
    assert Webhook(secret).verify(body, headers) == PING
    assert isinstance(verify_webhook(secret, body, headers), models.PingEvent)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda body, headers: (body.replace(b"test", b"live"), headers),
        lambda body, headers: (body, headers | {"webhook-id": "other"}),
        lambda body, headers: (body, headers | {"webhook-timestamp": str(int(time.time()) - 301)}),
        lambda body, headers: (body, headers | {"webhook-signature": "v1," + "A" * 44}),
        lambda body, headers: (body, {k: v for k, v in headers.items() if k != "webhook-signature"}),
    ],
    ids=["body changed", "id changed", "too old", "wrong signature", "no signature"],
)
def test_anything_altered_or_stale_is_refused(tamper: object) -> None:
    secret = new_secret()
    body = json.dumps(PING).encode()
    body, headers = tamper(body, signed_headers(secret, PING["id"], body))  # type: ignore[operator]
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret, body, headers)


def test_another_secret_is_refused_and_one_of_several_signatures_is_enough() -> None:
    secret, other = new_secret(), new_secret()
    body = json.dumps(PING).encode()
    with pytest.raises(WebhookVerificationError):
        verify_webhook(other, body, signed_headers(secret, PING["id"], body))
    headers = signed_headers(secret, PING["id"], body)
    rotated = signed_headers(other, PING["id"], body)["webhook-signature"]
    headers["webhook-signature"] = f"{rotated} {headers['webhook-signature']}"
    assert verify_webhook(secret, body, headers).id == PING["id"]
