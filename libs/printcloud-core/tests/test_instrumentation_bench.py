"""`pytest -m bench -s libs/printcloud-core/tests/test_instrumentation_bench.py`: what tracing costs a
SQL statement (an instrumented engine against a bare one, on the real PostgreSQL, spans exported
in batches to an exporter that drops them), and what one OTLP metrics export costs the process
(converting the whole registry). Prints the figures; asserts only that the work was done."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, MetricsData
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from printcloud.core.db.database import Database
from printcloud.core.db.url import DatabaseUrl
from printcloud.core.telemetry.otlp import MetricsToOtlp
from tests.telemetry.metric_names import registered_series

STATEMENTS = 2000
ROUNDS = 5


class _DroppedSpans(SpanExporter):
    def __init__(self) -> None:
        self.count = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.count += len(spans)
        return SpanExportResult.SUCCESS


class _DroppedMetrics(MetricExporter):
    def __init__(self) -> None:
        super().__init__()
        self.points = 0

    def export(self, metrics_data: MetricsData, timeout_millis: float = 10_000, **_: object) -> MetricExportResult:
        self.points += sum(
            len(m.data.data_points) for r in metrics_data.resource_metrics for s in r.scope_metrics for m in s.metrics
        )
        return MetricExportResult.SUCCESS

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return True

    def shutdown(self, timeout_millis: float = 30_000, **_: object) -> None:
        pass


async def _microseconds_per_statement(db: Database) -> float:
    async with db.read() as session:
        began = time.perf_counter()
        for _ in range(STATEMENTS):
            await session.execute(text("SELECT 1"))
        return (time.perf_counter() - began) / STATEMENTS * 1e6


@pytest.mark.bench
async def test_tracing_cost_per_sql_statement(database_url: str) -> None:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        trace.set_tracer_provider(TracerProvider())
        provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider)
    exporter = _DroppedSpans()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    target = DatabaseUrl.parse(database_url)
    bare = Database(create_async_engine("postgresql+asyncpg://", async_creator=target.connect))
    traced = Database.connect(database_url, application_name="bench")
    times: dict[str, list[float]] = {"bare": [], "traced": []}
    try:
        for _ in range(ROUNDS):  # interleaved, so that a busy moment of the machine hits both
            times["bare"].append(await _microseconds_per_statement(bare))
            times["traced"].append(await _microseconds_per_statement(traced))
    finally:
        await bare.close()
        await traced.close()
        provider.force_flush()
    bare_us, traced_us = statistics.median(times["bare"]), statistics.median(times["traced"])
    print(
        f"\nSELECT 1 over {STATEMENTS} statements x {ROUNDS} rounds: bare {bare_us:.0f} us, traced {traced_us:.0f} us"
        f" (+{traced_us - bare_us:.0f} us per statement); {exporter.count} spans exported"
    )
    assert exporter.count >= STATEMENTS * ROUNDS


@pytest.mark.bench
def test_cost_of_one_otlp_metrics_export() -> None:
    registered_series()  # every module's metrics registered, as in a process that has them all
    exporter = _DroppedMetrics()
    bridge = MetricsToOtlp(exporter, Resource.create({"service.name": "bench"}), 60)
    runs = []
    for _ in range(50):
        began = time.process_time()
        bridge.export_once()
        runs.append((time.process_time() - began) * 1000)
    print(f"\none OTLP metrics export: {statistics.median(runs):.2f} ms CPU, {exporter.points // 50} data points")
    assert exporter.points > 0
