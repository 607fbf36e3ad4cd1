"""What the suite watches from outside: the event feed read as the spec's client reads it, and the
webhook endpoints (real HTTP servers on 127.0.0.1) subscribed to every event type."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import httpx
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from printcloud.contracts.enums import SUBSCRIBABLE
from printcloud.core.timeutil import parse_iso
from tests.support.receiver import Answer, Received, Receiver

FEED_POLL_SECONDS = 1.0


@dataclass(frozen=True)
class FeedEvent:
    id: str
    type: str
    subject: str | None  # the job's (or computer's, printer's) id in `data`
    seen_at: float
    happened_at: float  # the event's own `timestamp`


class FeedFollower:
    """Polls GET /v1/events with dir=asc and `after` = the last id it processed, never skipping
    ahead, for each tenant; keeps every event in the order it was read."""

    def __init__(self, api_url: str, read_keys: dict[str, str]) -> None:
        self.api_url = api_url
        self.read_keys = read_keys
        self.events: dict[str, list[FeedEvent]] = {org: [] for org in read_keys}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feed-follower", daemon=True)

    def start(self) -> FeedFollower:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)

    def snapshot(self) -> dict[str, list[FeedEvent]]:
        with self._lock:
            return {org: list(events) for org, events in self.events.items()}

    def _run(self) -> None:
        cursors: dict[str, str | None] = dict.fromkeys(self.read_keys)
        clients = {org: httpx.Client(base_url=self.api_url, headers={"Authorization": f"Bearer {key}"}, timeout=10)
                   for org, key in self.read_keys.items()}  # fmt: skip
        try:
            while not self._stop.wait(FEED_POLL_SECONDS):
                for org, client in clients.items():
                    cursors[org] = self._read_new(org, client, cursors[org])
        finally:
            for client in clients.values():
                client.close()

    def _read_new(self, org: str, client: httpx.Client, after: str | None) -> str | None:
        while True:
            params: dict[str, Any] = {"dir": "asc", "limit": 100}
            if after is not None:
                params["after"] = after
            try:
                response = client.get("/v1/events", params=params)
            except httpx.HTTPError:
                return after
            if response.status_code != 200:
                return after  # a gateway down or a 429: the next poll reads from the same place
            page = response.json()
            now = time.time()
            with self._lock:
                self.events[org] += [
                    FeedEvent(
                        item["id"],
                        item["type"],
                        (item.get("data") or {}).get("id"),
                        now,
                        parse_iso(item["timestamp"]).timestamp(),
                    )
                    for item in page["data"]
                ]
            if page["data"]:
                after = page["nextCursor"]
            if not page["hasMore"]:
                return after


@dataclass(frozen=True)
class Delivery:
    org_id: str
    event_id: str
    valid_signature: bool


class WebhookSink:
    """One endpoint per tenant, subscribed to every event type, at a receiver that answers 200 and
    checks each request's signature as it arrives (a signature is only valid for a few minutes)."""

    def __init__(self) -> None:
        self.receiver = Receiver(self._answer)
        self.secrets: dict[str, str] = {}
        # When each tenant's endpoint was known to exist: events before it have no delivery to make
        # (the tenant's virtual computer and printers come online before it subscribes).
        self.subscribed_at: dict[str, float] = {}
        self._subscribed = threading.Condition()
        self._deliveries: list[Delivery] = []

    def __enter__(self) -> WebhookSink:
        self.receiver.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.receiver.__exit__(*exc)

    def _answer(self, request: Received, _count: int) -> Answer:
        org_id = request.path.lstrip("/")
        with self._subscribed:
            # The first event can arrive before the creation's answer gave the secret.
            self._subscribed.wait_for(lambda: org_id in self.secrets, timeout=10)
            secret = self.secrets.get(org_id)
        try:
            Webhook(secret or "whsec_dW5rbm93bg==").verify(request.body, request.headers)
            valid = secret is not None
        except WebhookVerificationError:
            valid = False
        with self._subscribed:
            self._deliveries.append(Delivery(org_id, request.headers.get("webhook-id", ""), valid))
        return Answer(200, b"ok")

    def subscribe(self, api_url: str, org_id: str, admin_key: str) -> None:
        with httpx.Client(base_url=api_url, headers={"Authorization": f"Bearer {admin_key}"}, timeout=30) as client:
            body = {"url": self.receiver.url(f"/{org_id}"), "description": "fault suite", "events": list(SUBSCRIBABLE)}
            response = client.post("/v1/webhooks", json=body)
        assert response.status_code == 201, response.text
        with self._subscribed:
            self.secrets[org_id] = response.json()["secret"]
            self.subscribed_at[org_id] = time.time()
            self._subscribed.notify_all()

    def by_event(self) -> dict[str, list[Delivery]]:
        with self._subscribed:
            deliveries = list(self._deliveries)
        grouped: dict[str, list[Delivery]] = defaultdict(list)
        for delivery in deliveries:
            grouped[delivery.event_id].append(delivery)
        return grouped
