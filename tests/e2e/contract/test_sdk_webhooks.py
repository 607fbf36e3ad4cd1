"""Webhook endpoints through the Python SDK, on the stack that may deliver to loopback: the real
deliveries verify with `verify_webhook` and come out typed; the log, a replay and deletion."""

from __future__ import annotations

import pytest

from printcloud.devstack.stack import Stack
from printcloud_sdk import ConflictError, NotFoundError, PrintCloud, WebhookVerificationError, models, verify_webhook
from tests.e2e.client import eventually
from tests.e2e.tenants import create_key, create_org
from tests.support.receiver import Receiver


def test_an_endpoint_gets_signed_typed_deliveries(contract_stack: Stack, webhook_receiver: Receiver) -> None:
    key = create_key(contract_stack, create_org(contract_stack, "SDK-webhooks"), "test", "read,print,admin")
    with PrintCloud(key, base_url=contract_stack.api_url) as client:
        endpoint = client.webhooks.create(webhook_receiver.url("/sdk"), ["printer.updated"], description="SDK")
        assert endpoint.secret.startswith("whsec_") and endpoint.events == ["printer.updated"]
        ping = client.webhooks.ping(endpoint.id)
        assert ping.event_type == "ping" and isinstance(ping.payload, models.PingEvent)
        printer = eventually(lambda: next(client.printers.iterate(), None), timeout=60, what="a virtual printer")
        client.printers.update(printer.id, display_name="Renamed by the SDK")
        eventually(lambda: len(webhook_receiver.received("/sdk")) >= 2, timeout=30, what="two deliveries")
        received = [verify_webhook(endpoint.secret, r.body, r.headers) for r in webhook_receiver.received("/sdk")]
        assert {type(event) for event in received} == {models.PingEvent, models.PrinterUpdatedEvent}
        update = next(event for event in received if isinstance(event, models.PrinterUpdatedEvent))
        assert update.data.id == printer.id and update.data.changes["displayName"].to == "Renamed by the SDK"
        request = webhook_receiver.received("/sdk")[0]
        with pytest.raises(WebhookVerificationError):
            verify_webhook(endpoint.secret, request.body + b" ", request.headers)
        deliveries = eventually(
            lambda: [d for d in client.webhooks.deliveries(endpoint.id) if d.status == "succeeded"] or None,
            what="the delivery log",
        )
        replayed = client.webhooks.replay(deliveries[0].id)
        assert replayed.event_id == deliveries[0].event_id
        assert client.webhooks.update(endpoint.id, enabled=False).enabled is False
        with pytest.raises(ConflictError) as disabled:
            client.webhooks.ping(endpoint.id)
        assert disabled.value.code == "endpoint_disabled"
        client.webhooks.delete(endpoint.id)
        with pytest.raises(NotFoundError):
            client.webhooks.get(endpoint.id)
