"""The webhook endpoints and the event feed through the public HTTP API of the running stack:
create (secret shown once), read, disable, ping, deliveries signed as Standard Webhooks checks
them, the delivery log, the feed, and the URL rules."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from standardwebhooks import Webhook

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, assert_error, eventually
from tests.e2e.tenants import OfficeTenant
from tests.support.receiver import Receiver


@pytest.fixture
def client(webhooks_stack: Stack, webhook_tenant: OfficeTenant) -> Iterator[httpx.Client]:
    with api(webhooks_stack.api_url, webhook_tenant.key) as c:
        yield c


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


def _create(client: httpx.Client, url: str, events: list[str]) -> dict:
    response = client.post("/v1/webhooks", json={"url": url, "description": "e2e", "events": events})
    assert response.status_code == 201, response.text
    return response.json()


def test_an_endpoint_shows_its_secret_once_and_can_be_disabled_pinged_and_deleted(
    client: httpx.Client, receiver: Receiver
) -> None:
    created = _create(client, receiver.url("/lifecycle"), ["printjob.done"])
    assert created["secret"].startswith("whsec_")
    assert created["enabled"] is True and created["events"] == ["printjob.done"]

    shown = client.get(f"/v1/webhooks/{created['id']}").json()
    assert "secret" not in shown and shown["url"] == receiver.url("/lifecycle")
    assert all("secret" not in e for e in client.get("/v1/webhooks").json()["data"])

    assert client.patch(f"/v1/webhooks/{created['id']}", json={"enabled": False}).json()["enabled"] is False
    assert_error(client.post(f"/v1/webhooks/{created['id']}/ping"), 409, "endpoint_disabled")

    client.patch(f"/v1/webhooks/{created['id']}", json={"enabled": True})
    ping = client.post(f"/v1/webhooks/{created['id']}/ping")
    assert ping.status_code == 202, ping.text
    assert ping.json()["eventType"] == "ping"

    [request] = eventually(lambda: receiver.received("/lifecycle"), what="the ping")
    payload = Webhook(created["secret"]).verify(request.body, request.headers)
    assert payload["type"] == "ping" and payload["data"] == {}
    assert request.headers["user-agent"] == "PrintCloud-Webhooks/1.0"

    assert client.delete(f"/v1/webhooks/{created['id']}").status_code == 204
    assert_error(client.get(f"/v1/webhooks/{created['id']}"), 404, "not_found")


def test_job_events_are_delivered_signed_logged_and_listed_in_the_feed(
    client: httpx.Client, receiver: Receiver, webhook_tenant: OfficeTenant
) -> None:
    endpoint = _create(client, receiver.url("/jobs"), ["printjob.queued", "printjob.done"])
    job = client.post(
        "/v1/printjobs",
        json={
            "printerId": webhook_tenant.printer_id,
            "title": "hooked",
            "contentType": "pdf_base64",
            "content": PDF_BASE64,
        },
    ).json()

    def delivered_types() -> list[str] | None:
        hook = Webhook(endpoint["secret"])
        mine = [hook.verify(r.body, r.headers) for r in receiver.received("/jobs")]
        types = [p["type"] for p in mine if p["data"].get("id") == job["id"]]
        return types if "printjob.done" in types else None

    types = eventually(delivered_types, timeout=30, what="printjob.done delivered")
    assert set(types) == {"printjob.queued", "printjob.done"}, "only the subscribed types"

    log = client.get(f"/v1/webhooks/{endpoint['id']}/deliveries").json()
    assert log["data"] and all(d["status"] == "succeeded" and d["responseCode"] == 200 for d in log["data"])
    for logged in log["data"]:
        [attempt] = logged["attempts"]
        assert (attempt["attempt"], attempt["responseCode"]) == (1, 200)
        assert attempt["sentAt"] <= logged["deliveredAt"]
    assert [d["createdAt"] for d in log["data"]] == sorted((d["createdAt"] for d in log["data"]), reverse=True)

    # The spec's client rule: start without `after`, then keep `after` at the last id processed.
    # Other tests on this stack fill the feed, so the job's events may be pages away.
    seen: list[dict] = []
    cursor: dict[str, str] = {}

    def job_events_in_feed() -> list[dict] | None:
        while True:
            page = client.get("/v1/events", params={"dir": "asc", "limit": 100, **cursor}).json()
            seen.extend(page["data"])
            if page["nextCursor"]:
                cursor["after"] = page["nextCursor"]
            if not page["hasMore"]:
                break
        mine = [e for e in seen if e["data"].get("id") == job["id"]]
        return mine if any(e["type"] == "printjob.done" for e in mine) else None

    feed = eventually(job_events_in_feed, timeout=30, what="the job's events in the feed")
    assert [e["type"] for e in feed] == [
        "printjob.queued",
        "printjob.sent",
        "printjob.received",
        "printjob.printing",
        "printjob.done",
    ]
    assert [e["id"] for e in feed] == sorted(e["id"] for e in feed)
    assert all(e["mode"] == "test" for e in feed)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.2/hook", "loopback outside the allowlist"),
        ("http://[::1]/hook", "IPv6 loopback"),
        ("http://user:pass@127.0.0.1/hook", "credentials in the URL"),
        ("ftp://127.0.0.1/hook", "not http"),
    ],
)
def test_urls_that_break_the_rules_are_invalid_url(client: httpx.Client, url: str, why: str) -> None:
    response = client.post("/v1/webhooks", json={"url": url, "description": why, "events": ["printjob.done"]})
    assert_error(response, 422, "invalid_url")


@pytest.mark.parametrize("events", [["ping"], ["printjob.exploded"], []])
def test_only_the_specs_event_types_are_subscribable(client: httpx.Client, receiver: Receiver, events: list) -> None:
    response = client.post("/v1/webhooks", json={"url": receiver.url(), "description": "x", "events": events})
    assert_error(response, 400, "invalid_request")
