"""The use cases through the gRPC servicer (URL checks, ping, replay, disabled endpoints) and the automatic
disabling with owners e-mailed through a real SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from typing import Any, TypeVar

import pytest
from sqlalchemy import select
from standardwebhooks import Webhook

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.kafka.envelope import Message
from printcloud.core.mail import SmtpServer
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat, utcnow
from printcloud.devstack.ports import free_port
from printcloud.devstack.smtp_sink import SmtpSink
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from printcloud.webhooks.domain.endpoints import AUTO_DISABLED_REASON
from printcloud.webhooks.persistence.tables import deliveries
from printcloud.webhooks.workers.mailer import Mailer
from services.webhooks.tests.conftest import domain_events_handler, running_worker, servicer
from services.webhooks.tests.test_delivery_worker import wait_for
from tests.support.grpc_server import serving
from tests.support.receiver import Answer, Receiver

Reply = TypeVar("Reply")


@pytest.fixture
async def webhooks(db: Database) -> AsyncIterator[webhooks_pb2_grpc.WebhooksStub]:
    async with serving(webhooks_pb2_grpc.add_WebhooksServicer_to_server, servicer(db)) as channel:
        yield webhooks_pb2_grpc.WebhooksStub(channel)


def _scope(scope: Scope) -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(scope.organization_id), mode=scope.mode)


async def _create(
    webhooks: webhooks_pb2_grpc.WebhooksStub, scope: Scope, url: str, events: list[str] | None = None
) -> webhooks_pb2.WebhookEndpoint:
    request = webhooks_pb2.CreateEndpointRequest(scope=_scope(scope), url=url, events=events or ["printjob.done"])
    return await rpc.call(webhooks.CreateEndpoint, request)


async def _code(call: Awaitable[Reply]) -> str:
    with pytest.raises(ApiError) as raised:
        await call
    return raised.value.code


async def test_url_rules_on_create_and_change(webhooks: webhooks_pb2_grpc.WebhooksStub, scope: Scope) -> None:
    live = Scope(scope.organization_id, "live")
    for url in (
        "http://127.0.0.2:8080/hook",  # loopback outside the allowlist
        "http://[::1]:8080/hook",
        "http://2130706434/hook",  # 127.0.0.2 written as a number
        "http://user:pass@127.0.0.1:8080/hook",  # credentials
        "ftp://127.0.0.1/hook",
        "http://127.0.0.1:8080/" + "a" * 2048,
    ):
        assert await _code(_create(webhooks, scope, url)) == "invalid_url", url
    # Live endpoints need https:; test ones may use http:.
    assert await _code(_create(webhooks, live, "http://127.0.0.1:8080/hook")) == "invalid_url"
    created = await _create(webhooks, scope, "http://127.0.0.1:8080/hook")
    assert created.secret.startswith("whsec_") and created.enabled
    change = webhooks_pb2.UpdateEndpointRequest(scope=_scope(scope), id=created.id, url="http://127.0.0.2/x")
    assert await _code(rpc.call(webhooks.UpdateEndpoint, change)) == "invalid_url"
    shown = await rpc.call(webhooks.GetEndpoint, webhooks_pb2.EndpointRef(scope=_scope(scope), id=created.id))
    assert not shown.HasField("secret") and shown.url == "http://127.0.0.1:8080/hook"
    # Another mode of the same organization does not see it.
    other = webhooks_pb2.EndpointRef(scope=_scope(live), id=created.id)
    assert await _code(rpc.call(webhooks.GetEndpoint, other)) == "not_found"
    assert await _code(_create(webhooks, scope, "http://127.0.0.1:8080/h", ["ping"])) == "invalid_request"


async def test_ping_and_replay_are_signed_and_refused_on_a_disabled_endpoint(
    db: Database, webhooks: webhooks_pb2_grpc.WebhooksStub, scope: Scope
) -> None:
    with Receiver() as receiver:
        created = await _create(webhooks, scope, receiver.url())
        ref = webhooks_pb2.EndpointRef(scope=_scope(scope), id=created.id)
        async with running_worker(db):
            ping = await rpc.call(webhooks.PingEndpoint, ref)
            assert ping.event_type == "ping" and json.loads(ping.payload_json)["data"] == {}
            await wait_for(lambda: len(receiver.received()) == 1, what="the ping")
            replay = await rpc.call(webhooks.ReplayDelivery, webhooks_pb2.DeliveryRef(scope=_scope(scope), id=ping.id))
            await wait_for(lambda: len(receiver.received()) == 2, what="the replay")
        first, second = receiver.received()
    assert replay.event_id == ping.event_id and replay.id != ping.id
    assert first.body == second.body
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == ping.event_id
    for request in (first, second):
        assert Webhook(created.secret).verify(request.body, request.headers)["type"] == "ping"
    disable = webhooks_pb2.UpdateEndpointRequest(scope=_scope(scope), id=created.id, enabled=False)
    assert not (await rpc.call(webhooks.UpdateEndpoint, disable)).enabled
    assert await _code(rpc.call(webhooks.PingEndpoint, ref)) == "endpoint_disabled"
    replay_ref = webhooks_pb2.DeliveryRef(scope=_scope(scope), id=ping.id)
    assert await _code(rpc.call(webhooks.ReplayDelivery, replay_ref)) == "endpoint_disabled"
    # Pings never reach the feed.
    events = await rpc.call(webhooks.ListEvents, webhooks_pb2.ListEventsRequest(scope=_scope(scope)))
    assert list(events.items) == []


async def test_an_endpoint_failing_for_the_period_is_disabled_owners_mailed_and_reenabling_resumes(
    db: Database, webhooks: webhooks_pb2_grpc.WebhooksStub, scope: Scope
) -> None:
    handler = domain_events_handler(db)
    owners = ["Owner@Example.test", "second@example.test"]
    await handler(Message("organization.created", str(scope.organization_id), "test",
                          {"id": str(scope.organization_id), "name": "Acme", "ownerEmails": owners}))  # fmt: skip
    sink = SmtpSink(free_port())
    sink.start()
    # It never polls within the test: it sends because the worker tells it the e-mails were queued.
    mailer = Mailer(db, SmtpServer("127.0.0.1", sink.port, "", "", False, "PrintCloud <no-reply@test>"),
                    poll_interval=600.0)  # fmt: skip
    mailing = asyncio.create_task(mailer.run())
    healthy = False

    def answer(_request: Any, _count: int) -> Answer:
        return Answer(200) if healthy else Answer(500, b"down")

    try:
        with Receiver(answer) as receiver:
            created = await _create(webhooks, scope, receiver.url())
            ref = webhooks_pb2.EndpointRef(scope=_scope(scope), id=created.id)
            async with running_worker(
                db, retry_scale=0.002, auto_disable_after=timedelta(seconds=1), on_mail_queued=mailer.wake
            ):
                for _ in range(3):
                    await handler(Message("printjob.done", str(scope.organization_id), "test", {"id": "j"}))

                async def disabled() -> bool:
                    return not (await rpc.call(webhooks.GetEndpoint, ref)).enabled

                await wait_for(disabled, timeout=20, what="the endpoint to be disabled")
                shown = await rpc.call(webhooks.GetEndpoint, ref)
                assert shown.disabled_reason == AUTO_DISABLED_REASON
                mails = await wait_for(lambda: len(sink.received()) == 2 and sink.received(), what="the e-mails")
                assert sorted(m["To"] for m in mails) == ["owner@example.test", "second@example.test"]
                assert all(AUTO_DISABLED_REASON in m.get_payload() and created.id in m.get_payload() for m in mails)

                # Events produced while disabled are not sent to it.
                await handler(Message("printjob.done", str(scope.organization_id), "test", {"id": "while-off"}))
                healthy = True
                enable = webhooks_pb2.UpdateEndpointRequest(scope=_scope(scope), id=created.id, enabled=True)
                assert (await rpc.call(webhooks.UpdateEndpoint, enable)).enabled
                await handler(Message("printjob.done", str(scope.organization_id), "test", {"id": "after"}))
                await wait_for(
                    lambda: any(json.loads(r.body)["data"]["id"] == "after" for r in receiver.received()),
                    what="a delivery after re-enabling",
                )
        assert not any(json.loads(r.body)["data"]["id"] == "while-off" for r in receiver.received())
    finally:
        mailing.cancel()
        await asyncio.gather(mailing, return_exceptions=True)
        sink.stop()


async def test_an_event_goes_to_the_endpoints_enabled_when_it_happened_however_late_it_is_consumed(
    db: Database, webhooks: webhooks_pb2_grpc.WebhooksStub, scope: Scope
) -> None:
    handler = domain_events_handler(db)
    before_creation = utcnow()
    created = await _create(webhooks, scope, "http://127.0.0.1:9/hook")
    while_enabled = utcnow()
    change = webhooks_pb2.UpdateEndpointRequest(scope=_scope(scope), id=created.id, enabled=False)
    await rpc.call(webhooks.UpdateEndpoint, change)
    await rpc.call(webhooks.UpdateEndpoint, change)  # disabling again keeps when it was disabled
    while_disabled = utcnow()
    change.enabled = True
    await rpc.call(webhooks.UpdateEndpoint, change)
    after_reenabling = utcnow()

    # Each event is consumed only now, after all the changes, as a lagging consumer would.
    for name, happened in (
        ("before creation", before_creation),
        ("while enabled", while_enabled),
        ("while disabled", while_disabled),
        ("after re-enabling", after_reenabling),
    ):
        await handler(
            Message("printjob.done", str(scope.organization_id), "test", {"id": name}, timestamp=isoformat(happened))
        )
    async with db.read() as session:
        rows = (await session.execute(select(deliveries.c.payload).where(deliveries.c.endpoint_id == created.id))).all()
    assert sorted(row.payload["data"]["id"] for row in rows) == ["after re-enabling", "while enabled"]
