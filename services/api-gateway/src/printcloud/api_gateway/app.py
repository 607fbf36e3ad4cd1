"""Wiring of the gateway process: database, outbox relay, gRPC clients and the HTTP server."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from printcloud.api_gateway.persistence.repository import AccountsRepository
from printcloud.api_gateway.persistence.schema import migrate_gateway
from printcloud.api_gateway.persistence.tables import outbox
from printcloud.api_gateway.settings import Settings
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.core import rpc
from printcloud.core.broker_epoch import BrokerEpoch
from printcloud.core.bus import Producer
from printcloud.core.db import Database
from printcloud.core.ops import Readiness, serve_app, serve_ops, stop_app
from printcloud.core.outbox import OutboxRelay
from printcloud.core.service import run_periodically, run_until_stopped, setup_process
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc, webhooks_pb2_grpc

log = logging.getLogger(__name__)

IDEMPOTENCY_PURGE_SECONDS = 600


async def main() -> None:
    settings = Settings()
    setup_process(settings)
    await migrate_gateway(settings.database_url)
    db = Database.connect(settings.database_url, application_name=settings.service_name)
    accounts = AccountsRepository(db)

    epoch = await BrokerEpoch.checked(settings.kafka_bootstrap_servers, settings.broker_check_seconds)
    producer = Producer(settings.kafka_bootstrap_servers)
    await producer.start()
    # The CLI writes `organization.created` to the outbox; this relay is what publishes it.
    relay = OutboxRelay(db, outbox, producer, settings.database_url, epoch)

    jobs_channel = rpc.channel(settings.jobs_grpc_target)
    devices_channel = rpc.channel(settings.devices_grpc_target)
    webhooks_channel = rpc.channel(settings.webhooks_grpc_target)
    deps = GatewayDeps(
        accounts=accounts,
        jobs=jobs_pb2_grpc.JobsStub(jobs_channel),
        devices=devices_pb2_grpc.DevicesStub(devices_channel),
        webhooks=webhooks_pb2_grpc.WebhooksStub(webhooks_channel),
        agent_gateway_public_url=settings.agent_gateway_public_url,
    )
    readiness = Readiness(db.answers)
    cleanups: list[Callable[[], Awaitable[Any]]] = [
        db.close,
        devices_channel.close,
        jobs_channel.close,
        webhooks_channel.close,
        producer.stop,
    ]
    # The main port serves /metrics and the health checks too; the ops port is for uniform scraping.
    tasks: list[Awaitable[Any]] = []
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))
    server, http_task = await serve_app(
        create_app(deps, service_name=settings.service_name), settings.http_host, settings.http_port, "api-gateway"
    )
    readiness.mark_started()
    log.info("api gateway listening", extra={"host": settings.http_host, "port": settings.http_port})
    # Idempotency keys past their 24 hours: every replica purges, the deletes are idempotent.
    purge_keys = run_periodically(deps.idempotency.purge_expired, IDEMPOTENCY_PURGE_SECONDS, "idempotency key purge")
    # Shielded: on stop, `stop_app` lets requests in flight finish instead of cancelling them.
    await run_until_stopped(
        [*tasks, asyncio.shield(http_task), epoch.run(), relay.run(), purge_keys],
        [lambda: stop_app(server, http_task), *cleanups],
    )
