"""Webhook signatures (Standard Webhooks, as the API signs its deliveries) and typed events.

A receiver passes the raw body and the headers to `verify_webhook` and gets the event, typed by
its `type`; a forged, altered or replayed-too-late request raises `WebhookVerificationError`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from printcloud_sdk.errors import WebhookVerificationError
from printcloud_sdk.events import AnyDelivery, parse_delivery

SECRET_PREFIX = "whsec_"
TOLERANCE_SECONDS = 300


def new_secret() -> str:
    """A signing secret in the API's form: `whsec_` and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error as error:
        raise ValueError("a webhook secret is `whsec_` followed by base64") from error


def sign(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value of a request: `v1,` and the base64 HMAC-SHA256 of
    `{id}.{timestamp}.{body}` under the secret's key."""
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secret: str, webhook_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The headers a delivery of `body` carries, signed now (or at `timestamp`)."""
    when = int(time.time()) if timestamp is None else timestamp
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(when),
        "webhook-signature": sign(secret, webhook_id, when, body),
        "content-type": "application/json",
    }


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"missing header {name}")


def verify_signature(
    secret: str, body: bytes | str, headers: Mapping[str, str], *, tolerance: int = TOLERANCE_SECONDS
) -> None:
    """Raises `WebhookVerificationError` unless one `v1,` entry of `webhook-signature` is the
    signature of exactly `body` (the raw bytes received) and `webhook-timestamp` is within
    `tolerance` seconds of now."""
    raw = body.encode() if isinstance(body, str) else body
    webhook_id = _header(headers, "webhook-id")
    try:
        timestamp = int(_header(headers, "webhook-timestamp"))
    except ValueError as error:
        raise WebhookVerificationError("webhook-timestamp is not a number") from error
    if abs(time.time() - timestamp) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too far from now")
    expected = sign(secret, webhook_id, timestamp, raw).encode()
    for entry in _header(headers, "webhook-signature").split():
        if entry.startswith("v1,") and hmac.compare_digest(entry.encode(), expected):
            return
    raise WebhookVerificationError("no matching signature")


def verify_webhook(
    secret: str, body: bytes | str, headers: Mapping[str, str], *, tolerance: int = TOLERANCE_SECONDS
) -> AnyDelivery:
    """The event a webhook request delivers, once its signature holds (`verify_signature`):
    `PrintJobDoneEvent`, `PrinterUpdatedEvent`, ..., `PingEvent`, or `UnknownEvent` for a type
    newer than this SDK. Skip `webhook-id`s already processed: deliveries come at least once."""
    verify_signature(secret, body, headers, tolerance=tolerance)
    try:
        payload: Any = json.loads(body)
    except ValueError as error:
        raise WebhookVerificationError("the body is not JSON") from error
    try:
        return parse_delivery(payload)
    except ValidationError as error:
        raise WebhookVerificationError(f"the body is not an event: {error}") from error


__all__ = [
    "TOLERANCE_SECONDS",
    "new_secret",
    "sign",
    "signed_headers",
    "verify_signature",
    "verify_webhook",
]
