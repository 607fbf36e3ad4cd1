"""The delivery backlog as gauges, measured every few seconds by every replica (they agree:
dashboards and alerts take `max`)."""

from __future__ import annotations

from prometheus_client import Gauge

from printcloud.core.db.database import Database
from printcloud.core.periodic import run_periodically
from printcloud.webhooks.use_cases.sending import backlog as measured_backlog

MEASURE_SECONDS = 15.0

PENDING = Gauge("printcloud_webhook_deliveries_pending", "Deliveries to enabled endpoints not yet done")
DUE = Gauge("printcloud_webhook_deliveries_due", "Pending deliveries whose attempt time has come")
OLDEST_DUE = Gauge(
    "printcloud_webhook_oldest_due_delivery_age_seconds", "How long the most overdue delivery has waited past its time"
)


async def measure_backlog(db: Database) -> None:
    backlog = await measured_backlog(db)
    PENDING.set(backlog.pending)
    DUE.set(backlog.due)
    OLDEST_DUE.set(backlog.oldest_due_seconds)


async def run_backlog_metrics(db: Database, every_seconds: float = MEASURE_SECONDS) -> None:
    await run_periodically(lambda: measure_backlog(db), every_seconds, "webhook backlog")
