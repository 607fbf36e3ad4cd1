"""`pytest -m bench -s tests/e2e/webhooks/test_throughput.py`: deliveries per second from the stack's one
webhooks process to a receiver on 127.0.0.1 that answers 200 at once, alone and beside a slow
endpoint with a large backlog. Prints the figures; asserts only that every delivery succeeded."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator

import psutil
import pytest

from printcloud.core.db.database import Database
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat, utcnow
from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from printcloud.webhooks.domain.public_event import PublicEvent
from printcloud.webhooks.persistence import public_events
from printcloud.webhooks.persistence.tables import deliveries as deliveries_table
from tests.e2e.client import eventually
from tests.support.receiver import Answer, Received, Receiver

DELIVERIES = 2000
SLOW_BACKLOG = 20_000
SLOW_ANSWER_SECONDS = 1.0
EVENT_TYPE = "printjob.done"


@contextlib.contextmanager
def _endpoints(
    grpc_api: webhooks_pb2_grpc.WebhooksStub, scope: Scope, receiver: Receiver, count: int, path: str = "/b"
) -> Iterator[None]:
    ref = common_pb2.Scope(organization_id=str(scope.organization_id), mode=scope.mode)
    created = [
        grpc_api.CreateEndpoint(
            webhooks_pb2.CreateEndpointRequest(scope=ref, url=receiver.url(f"{path}{n}"), events=[EVENT_TYPE])
        )
        for n in range(count)
    ]
    try:
        yield
    finally:
        for endpoint in created:
            grpc_api.DeleteEndpoint(webhooks_pb2.EndpointRef(scope=ref, id=endpoint.id))


async def _enqueue(database_url: str, scope: Scope, events: int) -> float:
    """`events` events with their pending deliveries to every endpoint of `scope`, committed at once:
    the worker finds them all due together. Returns when they were committed (monotonic clock)."""
    db = Database.connect(database_url)
    try:
        batch = [PublicEvent(uuid7(), scope, EVENT_TYPE, isoformat(utcnow()), {"id": f"bench-{n}"})
                 for n in range(events)]  # fmt: skip
        async with db.driver_transaction() as tx:
            await public_events.record(tx, "throughput-test", batch, utcnow())
        return time.monotonic()
    finally:
        await db.close()


async def _succeeded(database_url: str, scope: Scope) -> int:
    db = Database.connect(database_url)
    try:
        async with db.read() as session:
            query = deliveries_table.select().where(
                deliveries_table.c.organization_id == scope.organization_id, deliveries_table.c.status == "succeeded"
            )
            return len((await session.execute(query)).all())
    finally:
        await db.close()


@pytest.mark.bench
@pytest.mark.parametrize("endpoint_count", [1, 25])
def test_deliveries_per_second_from_one_webhooks_process(
    webhooks_stack: Stack, webhooks_grpc: webhooks_pb2_grpc.WebhooksStub, endpoint_count: int
) -> None:
    scope = Scope(uuid7(), "test")  # an organization of its own: no other endpoint gets these events
    service = webhooks_stack.services["webhooks"].process
    assert service is not None
    webhooks_cpu, own_cpu = psutil.Process(service.pid), psutil.Process()
    with (
        Receiver() as receiver,
        _endpoints(webhooks_grpc, scope, receiver, endpoint_count),
    ):
        cpu_before = (sum(webhooks_cpu.cpu_times()[:2]), sum(own_cpu.cpu_times()[:2]))
        committed = asyncio.run(_enqueue(webhooks_stack.database_url, scope, DELIVERIES // endpoint_count))
        eventually(lambda: len(receiver.received()) >= DELIVERIES, timeout=600, interval=0.05,
                   what="every delivery at the receiver")  # fmt: skip
        eventually(lambda: asyncio.run(_succeeded(webhooks_stack.database_url, scope)) == DELIVERIES, timeout=60,
                   interval=0.05, what="every delivery recorded as succeeded")  # fmt: skip
        all_succeeded = time.monotonic()
        webhooks_seconds = sum(webhooks_cpu.cpu_times()[:2]) - cpu_before[0]
        receiver_seconds = sum(own_cpu.cpu_times()[:2]) - cpu_before[1]
        arrivals = sorted(r.at for r in receiver.received())
        connections = len({r.client_port for r in receiver.received()})
    assert len(arrivals) == DELIVERIES, "each delivery once: nothing failed, so nothing was retried"
    sending = arrivals[-1] - arrivals[0]
    total = all_succeeded - committed
    print(
        f"\n{DELIVERIES} deliveries to {endpoint_count} endpoint(s): first to last arrival {sending:.2f}s "
        f"({DELIVERIES / sending:.0f}/s) over {connections} connections; commit to all succeeded {total:.2f}s "
        f"({DELIVERIES / total:.0f}/s); "
        f"CPU webhooks {webhooks_seconds:.1f}s, test process (receiver) {receiver_seconds:.1f}s; "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )


def _slow_path_answers_late(request: Received, _count: int) -> Answer:
    return Answer(delay=SLOW_ANSWER_SECONDS) if request.path.startswith("/slow") else Answer()


@pytest.mark.bench
def test_deliveries_per_second_beside_a_slow_endpoint_with_a_backlog(
    webhooks_stack: Stack, webhooks_grpc: webhooks_pb2_grpc.WebhooksStub
) -> None:
    """The claim must not cost more as one endpoint's backlog grows: the fast endpoint's rate here
    is to be compared with the single-endpoint figure above."""
    slow, fast = Scope(uuid7(), "test"), Scope(uuid7(), "test")
    database_url = webhooks_stack.database_url
    with (
        Receiver(_slow_path_answers_late) as receiver,
        _endpoints(webhooks_grpc, slow, receiver, 1, path="/slow"),
        _endpoints(webhooks_grpc, fast, receiver, 1, path="/fast"),
    ):
        asyncio.run(_enqueue(database_url, slow, SLOW_BACKLOG))
        eventually(lambda: any(r.path.startswith("/slow") for r in receiver.received()), timeout=60,
                   interval=0.05, what="the slow endpoint busy")  # fmt: skip
        committed = asyncio.run(_enqueue(database_url, fast, DELIVERIES))
        eventually(lambda: asyncio.run(_succeeded(database_url, fast)) == DELIVERIES, timeout=600, interval=0.05,
                   what="every fast delivery recorded as succeeded")  # fmt: skip
        total = time.monotonic() - committed
        slow_sent = sum(1 for r in receiver.received() if r.path.startswith("/slow"))
    print(
        f"\n{DELIVERIES} deliveries to a fast endpoint beside {SLOW_BACKLOG} due at one answering in "
        f"{SLOW_ANSWER_SECONDS:.0f}s: commit to all succeeded {total:.2f}s ({DELIVERIES / total:.0f}/s); "
        f"{slow_sent} slow sends meanwhile; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
