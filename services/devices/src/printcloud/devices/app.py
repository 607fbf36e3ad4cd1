"""Wiring of the devices process: migrations, database, outbox relay, consumer and gRPC server."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from printcloud.core import rpc
from printcloud.core.broker_epoch import BrokerEpoch
from printcloud.core.bus import Consumer, Producer
from printcloud.core.db import Database
from printcloud.core.migrations import migrate
from printcloud.core.ops import Readiness, serve_ops
from printcloud.core.outbox import OutboxRelay
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.core.topics import DOMAIN_EVENTS
from printcloud.devices.gateway_sweep import run_gateway_sweep
from printcloud.devices.persistence.tables import SCHEMA, outbox, processed_messages
from printcloud.devices.settings import Settings
from printcloud.devices.transport.grpc_servicer import DevicesServicer
from printcloud.devices.transport.organization_events import CONSUMER_GROUP, OrganizationEventsHandler
from printcloud.v1 import devices_pb2_grpc

log = logging.getLogger(__name__)

GRPC_STOP_GRACE_SECONDS = 5.0


async def migrate_schema(database_url: str) -> None:
    await migrate(database_url, SCHEMA, "printcloud.core.sql")
    await migrate(database_url, SCHEMA, "printcloud.devices.persistence.migrations")


async def main() -> None:
    settings = Settings()
    setup_process(settings)
    cleanups: list[Callable[[], Awaitable[Any]]] = []
    tasks: list[Awaitable[Any]] = []

    db = Database.connect(settings.database_url, application_name=settings.service_name)
    cleanups.append(db.close)

    readiness = Readiness(db.answers)
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))

    await migrate_schema(settings.database_url)
    epoch = await BrokerEpoch.checked(settings.kafka_bootstrap_servers, settings.broker_check_seconds)
    tasks.append(epoch.run())

    producer = Producer(settings.kafka_bootstrap_servers)
    await producer.start()
    cleanups.append(producer.stop)
    tasks.append(OutboxRelay(db, outbox, producer, settings.database_url, epoch).run())

    consumer = Consumer(
        settings.kafka_bootstrap_servers, CONSUMER_GROUP, [DOMAIN_EVENTS], OrganizationEventsHandler(db), epoch
    )
    await consumer.start()
    cleanups.append(consumer.stop)
    tasks.append(consumer.run())
    tasks.append(processed_messages.run_purge(db))
    tasks.append(run_gateway_sweep(db, settings.gateway_instance_timeout_seconds, settings.gateway_sweep_seconds))

    server = rpc.create_server()
    devices_pb2_grpc.add_DevicesServicer_to_server(DevicesServicer(db), server)
    await rpc.start_server(server, settings.grpc_listen)
    cleanups.append(lambda: server.stop(GRPC_STOP_GRACE_SECONDS))
    log.info("devices service started", extra={"grpc_listen": settings.grpc_listen})
    readiness.mark_started()

    await run_until_stopped(tasks, cleanups)
