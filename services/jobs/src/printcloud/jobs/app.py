"""Wiring of the jobs process: migrations, database, outbox relay, Devices client, the consumer of
printer events, the workers (URL content fetches, housekeeping, the active-jobs gauge) and the
gRPC server."""

from __future__ import annotations

from datetime import timedelta

from printcloud.core import rpc
from printcloud.core.db.migrations import migrate
from printcloud.core.http.egress import EgressGuard
from printcloud.core.kafka.topics import DOMAIN_EVENTS, JOB_EVENTS
from printcloud.core.process.service_process import ServiceProcess
from printcloud.core.rpc import service_auth
from printcloud.jobs.persistence.tables import SCHEMA, outbox, processed_messages
from printcloud.jobs.settings import Settings
from printcloud.jobs.transport.devices_client import DevicesPrinterDirectory
from printcloud.jobs.transport.printer_events import PrinterEventsHandler
from printcloud.jobs.transport.servicer import JobsServicer
from printcloud.jobs.use_cases.print_jobs import JobLimits, JobService
from printcloud.jobs.use_cases.printer_conditions import CONSUMER_GROUP
from printcloud.jobs.use_cases.timers import JobTimers
from printcloud.jobs.workers.content_fetcher import ContentFetcher
from printcloud.jobs.workers.housekeeping import run_housekeeping
from printcloud.jobs.workers.job_metrics import run_job_metrics
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc

CORE_MIGRATIONS = "printcloud.core.kafka.sql"
JOBS_MIGRATIONS = "printcloud.jobs.persistence.migrations"


async def migrate_schema(database_url: str) -> None:
    await migrate(database_url, SCHEMA, CORE_MIGRATIONS)
    await migrate(database_url, SCHEMA, JOBS_MIGRATIONS)


async def main() -> None:
    settings = Settings.load()
    process = await ServiceProcess.start(settings, migrate_schema)
    await process.relay_outbox(outbox)
    printer_events = PrinterEventsHandler(process.db)
    await process.consume(
        CONSUMER_GROUP,
        [DOMAIN_EVENTS],
        printer_events,
        processed_messages,
        batch_handler=printer_events.handle_batch,
        wants=printer_events.wants,
    )

    devices = rpc.channel(settings.devices_grpc_target, settings.caller(service_auth.JOBS))
    process.on_stop(devices.close)
    egress = EgressGuard.from_setting(settings.egress_allowlist)
    process.on_stop(egress.aclose)
    limits = JobLimits(
        file_retention=timedelta(seconds=settings.file_retention_seconds),
        test_jobs_per_day=settings.test_jobs_per_day,
    )
    directory = DevicesPrinterDirectory(devices_pb2_grpc.DevicesStub(devices))
    new_jobs_topic = JOB_EVENTS if settings.create_jobs_on_job_events_topic else None
    jobs = JobService(process.db, directory, egress=egress, limits=limits, new_jobs_topic=new_jobs_topic)
    timers = JobTimers(process.db, settings.timer_policy())
    fetcher = ContentFetcher(jobs, egress, timeout_seconds=settings.content_fetch_timeout_seconds)
    jobs.fetch_requested = fetcher.wake
    process.run(fetcher.run())
    process.run(run_housekeeping(jobs, settings.housekeeping_interval_seconds))
    process.run(run_job_metrics(jobs))

    servicer = JobsServicer(jobs, timers)
    await process.serve_grpc(jobs_pb2_grpc.add_JobsServicer_to_server, servicer, settings.grpc_listen)
    await process.run_until_stopped()
