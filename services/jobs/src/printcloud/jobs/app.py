"""Wiring of the jobs process: migrations, database, outbox relay, Devices client, gRPC server."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from printcloud.core import rpc
from printcloud.core.broker_epoch import BrokerEpoch
from printcloud.core.bus import Producer
from printcloud.core.db import Database
from printcloud.core.egress import EgressGuard
from printcloud.core.migrations import migrate
from printcloud.core.ops import Readiness, serve_ops
from printcloud.core.outbox import OutboxRelay
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.jobs.content_fetcher import ContentFetcher
from printcloud.jobs.housekeeping import run_housekeeping
from printcloud.jobs.persistence.tables import SCHEMA, outbox
from printcloud.jobs.service import JobLimits, JobService
from printcloud.jobs.settings import Settings
from printcloud.jobs.transport.devices_client import DevicesPrinterDirectory
from printcloud.jobs.transport.servicer import JobsServicer
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc

CORE_MIGRATIONS = "printcloud.core.sql"
JOBS_MIGRATIONS = "printcloud.jobs.persistence.migrations"


async def main() -> None:
    settings = Settings()
    setup_process(settings)
    readiness = Readiness()
    cleanups: list[Callable[[], Awaitable[Any]]] = []
    # Background work; `run_until_stopped` cancels and awaits all of it on stop.
    tasks: list[Awaitable[Any]] = []
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))

    await migrate(settings.database_url, SCHEMA, CORE_MIGRATIONS)
    await migrate(settings.database_url, SCHEMA, JOBS_MIGRATIONS)
    db = Database.connect(settings.database_url, application_name=settings.service_name)
    cleanups.append(db.close)

    epoch = await BrokerEpoch.checked(settings.kafka_bootstrap_servers, settings.broker_check_seconds)
    producer = Producer(settings.kafka_bootstrap_servers)
    await producer.start()
    cleanups.append(producer.stop)
    relay = OutboxRelay(db, outbox, producer, settings.database_url, epoch)

    devices = rpc.channel(settings.devices_grpc_target)
    cleanups.append(devices.close)
    egress = EgressGuard.from_env()
    cleanups.append(egress.aclose)
    limits = JobLimits(
        file_retention=timedelta(seconds=settings.file_retention_seconds),
        test_jobs_per_day=settings.test_jobs_per_day,
    )
    jobs = JobService(db, DevicesPrinterDirectory(devices_pb2_grpc.DevicesStub(devices)), egress=egress, limits=limits)
    fetcher = ContentFetcher(db, jobs, egress, timeout_seconds=settings.content_fetch_timeout_seconds)
    jobs.fetch_requested = fetcher.wake

    server = rpc.create_server()
    jobs_pb2_grpc.add_JobsServicer_to_server(JobsServicer(jobs), server)
    await rpc.start_server(server, settings.grpc_listen)
    cleanups.append(lambda: server.stop(grace=5))
    readiness.mark_started()

    tasks += [epoch.run(), relay.run(), fetcher.run(), run_housekeeping(jobs, settings.housekeeping_interval_seconds)]
    await run_until_stopped(tasks, cleanups)
