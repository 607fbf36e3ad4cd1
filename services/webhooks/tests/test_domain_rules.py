"""The pure rules: signatures (checked by the independent `standardwebhooks` package), the retry
schedule, excerpts, endpoint fields and URL schemes."""

from __future__ import annotations

import base64
import random
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from printcloud.contracts.errors import ApiError
from printcloud.webhooks.domain.attempts import EXCERPT_BYTES, FAILED, RETRYING, SUCCEEDED, Outcome, after_attempt
from printcloud.webhooks.domain.endpoints import check_events, schemes_for
from printcloud.webhooks.domain.event_types import PING, SUBSCRIBABLE
from printcloud.webhooks.domain.retry_schedule import MAX_ATTEMPTS, WAITS_SECONDS, wait_after
from printcloud.webhooks.domain.signing import new_secret, signed_headers


def test_signature_verifies_with_the_standard_webhooks_package() -> None:
    secret = new_secret()
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    body = b'{"id":"e1","type":"printjob.done","data":{"title":"caf\xc3\xa9"}}'
    headers = signed_headers(secret, "e1", int(time.time()), body, "PrintCloud-Webhooks/1.0")
    assert Webhook(secret).verify(body, headers) is not None
    assert headers["webhook-signature"].startswith("v1,")
    assert headers["user-agent"] == "PrintCloud-Webhooks/1.0"
    assert headers["content-type"] == "application/json"
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret()).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body + b" ", headers)


def test_retry_waits_follow_the_spec_with_jitter_inside_20_percent() -> None:
    assert list(WAITS_SECONDS) == [5, 30, 120, 600, 1800, 7200, 28800, 57600]
    assert MAX_ATTEMPTS == 9
    rng = random.Random(7)
    for attempt, base in enumerate(WAITS_SECONDS, start=1):
        waits = [wait for _ in range(500) if (wait := wait_after(attempt, rng=rng)) is not None]
        assert len(waits) == 500 and all(0.8 * base <= w <= 1.2 * base for w in waits)
        # Jitter really varies the wait across the whole band, not a fixed offset.
        assert max(waits) - min(waits) > 0.3 * base
    assert wait_after(9) is None
    scaled = wait_after(1, scale=0.01, rng=rng)
    assert scaled is not None and 0.04 <= scaled <= 0.06


def test_attempt_outcomes() -> None:
    now = datetime(2030, 1, 1, tzinfo=UTC)
    ok = after_attempt(1, Outcome.answered(204, b""), now, retry_scale=1)
    assert (ok.status, ok.delivered_at, ok.next_attempt_at) == (SUCCEEDED, now, None)
    retry = after_attempt(1, Outcome.answered(500, b"no"), now, retry_scale=1)
    assert retry.status == RETRYING and retry.next_attempt_at is not None
    assert 4 <= (retry.next_attempt_at - now).total_seconds() <= 6
    assert after_attempt(9, Outcome.no_answer("timeout"), now, retry_scale=1).status == FAILED
    assert not Outcome.answered(302, b"").succeeded
    assert not Outcome.no_answer("connection refused").succeeded


def test_excerpt_is_the_first_2048_characters_even_with_multibyte_text() -> None:
    body = ("é" * 3000).encode()[:EXCERPT_BYTES]
    assert Outcome.answered(500, body).excerpt == "é" * 2048
    assert len(Outcome.answered(500, b"x" * 9000).excerpt) == 2048
    assert Outcome.no_answer("boom").excerpt == "boom"


def test_subscribable_types_are_the_spec_list_and_ping_is_not_one() -> None:
    assert len(SUBSCRIBABLE) == 15
    assert check_events(["printjob.done", "printjob.done", "computer.online"]) == ["printjob.done", "computer.online"]
    for bad in ([], [PING], ["organization.created"], ["printjob.*"]):
        with pytest.raises(ApiError) as raised:
            check_events(bad)
        assert raised.value.code == "invalid_request"


def test_live_endpoints_need_https() -> None:
    assert schemes_for("live") == ("https",)
    assert schemes_for("test") == ("http", "https")
