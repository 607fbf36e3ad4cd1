"""The delivery backlog gauges and the delivery latency, against the real database and a real
receiver on 127.0.0.1. The module has a database of its own: the gauges count every delivery in
it, and another module's retries would fall due between two measurements. Its tests share it, so
figures are compared before and after."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from prometheus_client import REGISTRY
from sqlalchemy import update

from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.app import migrate_schema
from printcloud.webhooks.persistence.tables import deliveries as deliveries_table
from printcloud.webhooks.persistence.tables import endpoints as endpoints_table
from printcloud.webhooks.workers.backlog_metrics import measure_backlog
from services.webhooks.tests.conftest import add_endpoint, running_worker
from services.webhooks.tests.test_delivery_worker import delivery_rows, wait_for
from tests.support.databases import database_fixtures
from tests.support.receiver import Receiver

database_url, db = database_fixtures("printcloud_webhooks_metrics_test", migrate_schema)


def gauge(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def test_the_backlog_counts_pending_and_due_deliveries_of_enabled_endpoints(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    await measure_backlog(db)
    before = {
        name: gauge(name) for name in ("printcloud_webhook_deliveries_pending", "printcloud_webhook_deliveries_due")
    }
    endpoint = await add_endpoint(db, scope, "http://127.0.0.1:9/hook")
    for _ in range(3):
        await publish(scope)
    async with db.transaction() as session:
        # One waits for a retry later; one is overdue by five minutes.
        rows = await delivery_rows(db, endpoint.id)
        later, overdue = rows[0].id, rows[1].id
        await session.execute(
            update(deliveries_table)
            .where(deliveries_table.c.id == later)
            .values(status="retrying", next_attempt_at=utcnow() + timedelta(hours=1))
        )
        await session.execute(
            update(deliveries_table)
            .where(deliveries_table.c.id == overdue)
            .values(next_attempt_at=utcnow() - timedelta(minutes=5))
        )
    await measure_backlog(db)
    assert gauge("printcloud_webhook_deliveries_pending") == before["printcloud_webhook_deliveries_pending"] + 3
    assert gauge("printcloud_webhook_deliveries_due") == before["printcloud_webhook_deliveries_due"] + 2
    assert gauge("printcloud_webhook_oldest_due_delivery_age_seconds") >= 300

    async with db.transaction() as session:
        await session.execute(update(endpoints_table).where(endpoints_table.c.id == endpoint.id).values(enabled=False))
    await measure_backlog(db)
    # A disabled endpoint's deliveries wait on purpose: they are not a backlog.
    assert gauge("printcloud_webhook_deliveries_pending") == before["printcloud_webhook_deliveries_pending"]


async def test_a_successful_delivery_records_its_latency_from_the_event(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    latency = "printcloud_webhook_delivery_latency_seconds_count"
    before = gauge(latency)
    with Receiver() as receiver:
        await add_endpoint(db, scope, receiver.url())
        async with running_worker(db):
            await publish(scope)
            # The counter is the process's: another test's straggling delivery may move it too,
            # so this delivery is awaited at the receiver first.
            await wait_for(lambda: len(receiver.received()) == 1, what="the delivery")
            await wait_for(lambda: gauge(latency) >= before + 1, what="the delivery's latency")
    assert gauge("printcloud_webhook_delivery_latency_seconds_sum") > 0
