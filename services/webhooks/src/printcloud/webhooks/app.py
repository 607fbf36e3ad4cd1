"""Wiring of the webhooks process: migrations, the domain-event consumer, the delivery worker, the
mailer, retention and the gRPC server."""

from __future__ import annotations

import logging
from collections.abc import Callable

from printcloud.core.db.database import Database
from printcloud.core.db.migrations import migrate
from printcloud.core.http.egress import EgressGuard
from printcloud.core.kafka.topics import DOMAIN_EVENTS, JOB_EVENTS
from printcloud.core.mail import SmtpServer
from printcloud.core.process.service_process import ServiceProcess
from printcloud.v1 import webhooks_pb2_grpc
from printcloud.webhooks.persistence.tables import SCHEMA, processed_messages
from printcloud.webhooks.settings import Settings
from printcloud.webhooks.transport.domain_events import DomainEventsHandler
from printcloud.webhooks.transport.servicer import WebhooksServicer
from printcloud.webhooks.use_cases.deliveries import Deliveries
from printcloud.webhooks.use_cases.endpoints import Endpoints
from printcloud.webhooks.use_cases.feed import CONSUMER_GROUP, Feed
from printcloud.webhooks.use_cases.organizations import Organizations
from printcloud.webhooks.workers.backlog_metrics import run_backlog_metrics
from printcloud.webhooks.workers.delivery_worker import DeliveryWorker, WorkerLimits
from printcloud.webhooks.workers.mailer import Mailer
from printcloud.webhooks.workers.retention import run_retention
from printcloud.webhooks.workers.sender import Sender

log = logging.getLogger(__name__)

RETENTION_PASS_SECONDS = 3600.0


async def migrate_schema(database_url: str) -> None:
    await migrate(database_url, SCHEMA, "printcloud.core.kafka.sql")
    await migrate(database_url, SCHEMA, "printcloud.webhooks.persistence.migrations")


def delivery_worker(
    db: Database, settings: Settings, guard: EgressGuard, on_mail_queued: Callable[[], None]
) -> DeliveryWorker:
    sender = Sender(guard, answer_timeout=settings.answer_timeout_seconds, user_agent=settings.user_agent)
    limits = WorkerLimits(
        max_concurrent=settings.max_concurrent_sends,
        per_endpoint=settings.per_endpoint_concurrency,
        failing_concurrent=settings.failing_endpoints_concurrency,
        lease=settings.claim_lease,
        poll_interval=settings.poll_interval_seconds,
        retry_scale=settings.retry_schedule_scale,
        auto_disable_after=settings.auto_disable_after,
    )
    return DeliveryWorker(db, sender, limits, on_mail_queued=on_mail_queued)


async def main() -> None:
    settings = Settings.load()
    process = await ServiceProcess.start(settings, migrate_schema)
    db = process.db
    guard = EgressGuard.from_setting(settings.egress_allowlist)
    process.on_stop(guard.aclose)

    mailer = Mailer(db, SmtpServer.from_settings(settings)) if settings.smtp_host else None
    if mailer is not None:
        process.run(mailer.run())
    else:
        log.warning("PRINTCLOUD_SMTP_HOST is not set: owners' e-mails stay queued until it is")
    worker = delivery_worker(db, settings, guard, on_mail_queued=mailer.wake if mailer else lambda: None)
    process.run(worker.run())
    process.run(run_backlog_metrics(db))
    process.run(run_retention(db, settings.retention, every_seconds=RETENTION_PASS_SECONDS))

    feed = Feed(db, feed_visibility_delay=settings.feed_visibility_delay, on_new_delivery=worker.wake)
    handler = DomainEventsHandler(feed, Organizations(db))
    await process.consume(
        CONSUMER_GROUP,
        [DOMAIN_EVENTS, JOB_EVENTS],
        handler,
        processed_messages,
        batch_handler=handler.handle_batch,
        wants=handler.wants,
    )
    servicer = WebhooksServicer(
        Endpoints(db, guard, on_new_delivery=worker.wake), Deliveries(db, on_new_delivery=worker.wake), feed
    )
    await process.serve_grpc(webhooks_pb2_grpc.add_WebhooksServicer_to_server, servicer, settings.grpc_listen)
    log.info("webhooks service started", extra={"grpc_listen": settings.grpc_listen})
    await process.run_until_stopped()
