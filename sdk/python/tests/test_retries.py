"""The spec's client behaviour, against a scripted transport: which answers are retried, how long
each wait is, and one Idempotency-Key for every try of a create."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from printcloud_sdk import (
    ApiConnectionError,
    AsyncPrintCloud,
    InvalidRequestError,
    NotFoundError,
    PrintCloud,
    RateLimitError,
    RetryPolicy,
    ServerError,
)

BASE = "http://printcloud.invalid"
JOB: dict[str, Any] = {
    "id": "5a4a4a6e-7f55-4c1e-9a53-5f0e2f8f3a10", "printerId": "9b0c3f4e-1d2e-4b5a-8c9d-0e1f2a3b4c5d",
    "computerId": "0f1e2d3c-4b5a-4697-8a9b-0c1d2e3f4a5b", "title": "t", "contentType": "pdf_base64",
    "source": "api", "qty": 1, "options": {}, "expireAfter": 86400, "expiresAt": "2026-11-27T08:00:00+00:00",
    "fileSha256": "", "fileSize": 8, "mode": "test", "state": "queued", "stateMessage": None,
    "createdAt": "2026-11-26T08:00:00+00:00", "sentAt": None, "receivedAt": None, "printingAt": None,
    "finishedAt": None,
}  # fmt: skip
ERROR = {"error": {"code": "x", "message": "m", "request_id": "req_1"}}
Answer = Callable[[httpx.Request], httpx.Response]


def _error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} happened", "request_id": f"req_{status}"}}
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """Answers requests in order, recording them."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


class _WithoutSleep:
    """A module as the clients see it, whose `sleep` records the wait instead of making it.

    Only the clients' own name for the module is replaced: replacing `asyncio.sleep` itself would
    make every task of the test session's loop (a server's tick, say) loop without ever yielding."""

    def __init__(self, module: Any, sleep: Callable[[float], Any]) -> None:
        self._module = module
        self.sleep = sleep

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """The waits the clients made, without making them."""
    made: list[float] = []

    async def no_async_sleep(seconds: float) -> None:
        made.append(seconds)

    monkeypatch.setattr("printcloud_sdk._sync_client.time", _WithoutSleep(time, made.append))
    monkeypatch.setattr("printcloud_sdk._async_client.asyncio", _WithoutSleep(asyncio, no_async_sleep))
    yield made


def _client(script: Script, retry: RetryPolicy | None = None) -> PrintCloud:
    http = httpx.Client(transport=httpx.MockTransport(script))
    return PrintCloud("svc_test_key", base_url=BASE, http_client=http, retry=retry)


def test_a_create_retried_after_429_and_503_sends_one_idempotency_key_and_honours_retry_after(
    waits: list[float],
) -> None:
    script = Script(
        _error(429, "rate_limited", {"Retry-After": "3"}),
        _error(503, "service_unavailable"),
        httpx.ReadTimeout("no answer"),
        httpx.Response(201, json=JOB),
    )
    job = _client(script).print_jobs.create(printer_id="p", title="t", content_type="pdf_base64", content="JVBERi0=")
    assert job.id == JOB["id"]
    keys = {request.headers["Idempotency-Key"] for request in script.requests}
    assert len(script.requests) == 4 and len(keys) == 1 and keys != {""}
    assert waits[0] >= 3  # Retry-After
    assert waits[1] <= RetryPolicy().initial_wait * 2 and waits[2] <= RetryPolicy().initial_wait * 4
    assert len({json.loads(request.content)["title"] for request in script.requests}) == 1


def test_two_creates_get_two_keys(waits: list[float]) -> None:
    script = Script(httpx.Response(201, json=JOB), httpx.Response(201, json=JOB))
    client = _client(script)
    for _ in range(2):
        client.print_jobs.create(printer_id="p", title="t", content_type="raw_base64", content="QQ==")
    assert script.requests[0].headers["Idempotency-Key"] != script.requests[1].headers["Idempotency-Key"]


def test_waits_grow_with_jitter_up_to_the_ceiling() -> None:
    policy = RetryPolicy(initial_wait=1, multiplier=2, max_wait=5, jitter=0.5)
    for retry, ceiling in enumerate((1, 2, 4, 5, 5)):
        drawn = [policy.wait(retry) for _ in range(200)]
        assert all(ceiling / 2 <= wait <= ceiling for wait in drawn)
        assert len(set(drawn)) > 1, "jittered"


def test_other_4xx_are_not_retried_and_raise_typed_errors(waits: list[float]) -> None:
    script = Script(_error(404, "not_found"), _error(400, "invalid_request"))
    client = _client(script)
    with pytest.raises(NotFoundError) as missing:
        client.print_jobs.get("x")
    assert (missing.value.status, missing.value.code, missing.value.request_id) == (404, "not_found", "req_404")
    with pytest.raises(InvalidRequestError):
        client.printers.list(limit=0)
    assert len(script.requests) == 2 and waits == []


def test_retries_end_with_the_last_answer_as_an_error(waits: list[float]) -> None:
    script = Script(*[_error(502, "internal_error")] * 3)
    with pytest.raises(ServerError) as failed:
        _client(script, RetryPolicy(max_retries=2)).whoami()
    assert failed.value.status == 502 and len(script.requests) == 3 and len(waits) == 2
    script = Script(*[_error(429, "test_mode_daily_cap")] * 2)
    with pytest.raises(RateLimitError):
        _client(script, RetryPolicy(max_retries=1)).whoami()


def test_a_post_without_a_key_is_not_resent_once_it_may_have_arrived(waits: list[float]) -> None:
    script = Script(httpx.ReadTimeout("no answer"))
    with pytest.raises(ApiConnectionError):
        _client(script).webhooks.ping("e")
    assert len(script.requests) == 1
    # A connection that never opened sent nothing: that is retried.
    script = Script(httpx.ConnectError("refused"), httpx.Response(202, json={}))
    with pytest.raises(ValueError):  # the scripted answer is no delivery; what matters is the retry
        _client(script).webhooks.ping("e")
    assert len(script.requests) == 2


def test_lists_follow_next_cursor_to_the_end(waits: list[float]) -> None:
    pages = [
        {"data": [JOB], "hasMore": True, "nextCursor": "c1"},
        {"data": [JOB | {"id": "second"}], "hasMore": False, "nextCursor": "second"},
    ]
    script = Script(*(httpx.Response(200, json=page) for page in pages))
    jobs = list(_client(script).print_jobs.iterate(state="queued"))
    assert [job.id for job in jobs] == [JOB["id"], "second"]
    assert "after" not in script.requests[0].url.params and script.requests[1].url.params["after"] == "c1"
    assert script.requests[1].url.params["state"] == "queued"


async def test_the_async_client_retries_alike(waits: list[float]) -> None:
    script = Script(_error(503, "service_unavailable"), httpx.Response(201, json=JOB))
    http = httpx.AsyncClient(transport=httpx.MockTransport(script))
    async with AsyncPrintCloud("svc_test_key", base_url=BASE, http_client=http) as client:
        job = await client.print_jobs.create(printer_id="p", title="t", content_type="raw_base64", content="QQ==")
    assert job.state == "queued" and len(waits) == 1
    assert script.requests[0].headers["Idempotency-Key"] == script.requests[1].headers["Idempotency-Key"]
