"""A throw-away database on the real PostgreSQL, migrated like the service does at start-up, plus
the service's parts wired as `app.py` wires them, with timers shortened."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import pytest

from printcloud.core.db.database import Database
from printcloud.core.http.egress import EgressGuard
from printcloud.core.ids import new_id, uuid7
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.app import migrate_schema
from printcloud.webhooks.domain.signing import new_secret
from printcloud.webhooks.persistence import endpoints
from printcloud.webhooks.transport.domain_events import DomainEventsHandler
from printcloud.webhooks.transport.servicer import WebhooksServicer
from printcloud.webhooks.use_cases.deliveries import Deliveries
from printcloud.webhooks.use_cases.endpoints import Endpoints
from printcloud.webhooks.use_cases.feed import Feed
from printcloud.webhooks.use_cases.organizations import Organizations
from printcloud.webhooks.workers.delivery_worker import DeliveryWorker, WorkerLimits
from printcloud.webhooks.workers.sender import Sender
from tests.support.databases import database_fixtures

# Receivers in tests are on 127.0.0.1 only; nothing else is reachable.
LOOPBACK_ONLY = EgressGuard(["127.0.0.1/32"])


database_url, db = database_fixtures("printcloud_webhooks_test", migrate_schema)


@pytest.fixture
def scope() -> Scope:
    """A fresh organization per test keeps tests independent on the shared database."""
    return Scope(uuid7(), "test")


def limits(**overrides: Any) -> WorkerLimits:
    values: dict[str, Any] = {
        "max_concurrent": 64,
        "per_endpoint": 4,
        "failing_concurrent": 32,
        "lease": timedelta(seconds=5),
        "poll_interval": 0.01,
        "retry_scale": 1.0,
        "auto_disable_after": timedelta(days=5),
    }
    return WorkerLimits(**{**values, **overrides})


@contextlib.asynccontextmanager
async def running_worker(
    db: Database, *, answer_timeout: float = 2.0, on_mail_queued: Callable[[], None] = lambda: None, **overrides: Any
) -> AsyncIterator[DeliveryWorker]:
    sender = Sender(LOOPBACK_ONLY, answer_timeout=answer_timeout, user_agent="PrintCloud-Webhooks/1.0")
    worker = DeliveryWorker(db, sender, limits(**overrides), on_mail_queued=on_mail_queued)
    task = asyncio.create_task(worker.run())
    try:
        yield worker
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def add_endpoint(db: Database, scope: Scope, url: str, events: list[str] | None = None) -> Any:
    async with db.transaction() as session:
        return await endpoints.create(
            session, scope, url=url, description="", events=events or ["printjob.done"], secret=new_secret(),
            now=utcnow(),
        )  # fmt: skip


def no_worker() -> None:
    """Stands in for the delivery worker's wake-up: these tests run the worker when they need it."""


def servicer(db: Database) -> WebhooksServicer:
    """The gRPC service over the use cases as `app.py` wires them, with events visible in the feed
    at once and no worker to wake."""
    return WebhooksServicer(
        Endpoints(db, LOOPBACK_ONLY, on_new_delivery=no_worker),
        Deliveries(db, on_new_delivery=no_worker),
        Feed(db, feed_visibility_delay=timedelta(0), on_new_delivery=no_worker),
    )


def domain_events_handler(db: Database) -> DomainEventsHandler:
    """The consumer's handler over the use cases as `app.py` wires them, with no worker to wake."""
    return DomainEventsHandler(
        Feed(db, feed_visibility_delay=timedelta(0), on_new_delivery=no_worker), Organizations(db)
    )


@pytest.fixture
def publish(db: Database) -> Callable[..., Any]:
    """Hands a domain event to the consumer's handler, as the Kafka consumer would."""
    handler = domain_events_handler(db)

    async def send(scope: Scope, event_type: str = "printjob.done", data: dict[str, Any] | None = None) -> Message:
        message = Message(event_type, str(scope.organization_id), scope.mode, data or {"id": new_id()})
        await handler(message)
        return message

    return send
