"""OTLP export of traces and metrics, configured by the standard `OTEL_*` variables.

Off unless asked for: a process exports when `PRINTCLOUD_OTEL_EXPORTER=otlp`, or, with the default
`auto`, when an OTLP endpoint variable is set. The exporters read the rest themselves (headers,
timeout, compression, certificates); the sampler comes from `OTEL_TRACES_SAMPLER`.

Metrics have one source, the Prometheus registry that `/metrics` serves; `MetricsToOtlp` sends the
same series, converted, to the OTLP endpoint every `OTEL_METRIC_EXPORT_INTERVAL` milliseconds.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    Gauge,
    Histogram,
    HistogramDataPoint,
    Metric,
    MetricExporter,
    MetricsData,
    NumberDataPoint,
    ResourceMetrics,
    ScopeMetrics,
    Sum,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export import SpanExporter
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.metrics_core import Metric as PrometheusFamily

log = logging.getLogger(__name__)

ENDPOINT_VARIABLES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)
DEFAULT_METRIC_INTERVAL_MS = 60_000
_SCOPE = InstrumentationScope("printcloud")


def otlp_wanted(setting: str, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this process exports over OTLP: `otlp` forces it, `auto` follows the endpoint variables."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return setting == "otlp" or (setting == "auto" and any(environ.get(name) for name in ENDPOINT_VARIABLES))


def signal_enabled(signal: str, environ: Mapping[str, str] = os.environ) -> bool:
    """`OTEL_TRACES_EXPORTER=none` / `OTEL_METRICS_EXPORTER=none` turn one signal off."""
    return environ.get(f"OTEL_{signal.upper()}_EXPORTER", "otlp").strip().lower() != "none"


def _protocol(signal: str, environ: Mapping[str, str]) -> str:
    specific = environ.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL")
    return (specific or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf").strip().lower()


def span_exporter(environ: Mapping[str, str] = os.environ) -> SpanExporter:
    if _protocol("traces", environ) == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter

        return GrpcSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def metric_exporter(environ: Mapping[str, str] = os.environ) -> MetricExporter:
    if _protocol("metrics", environ) == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter as GrpcMetricExporter

        return GrpcMetricExporter()
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    return OTLPMetricExporter()


def metric_interval_seconds(environ: Mapping[str, str] = os.environ) -> float:
    raw = environ.get("OTEL_METRIC_EXPORT_INTERVAL", "")
    try:
        milliseconds = float(raw) if raw else DEFAULT_METRIC_INTERVAL_MS
    except ValueError:
        log.warning("OTEL_METRIC_EXPORT_INTERVAL is not a number; using the default", extra={"value": raw})
        milliseconds = DEFAULT_METRIC_INTERVAL_MS
    return max(milliseconds, 100.0) / 1000


def _labels(sample_labels: Mapping[str, str], drop: str = "") -> dict[str, str]:
    return {k: v for k, v in sample_labels.items() if k != drop}


def _numbers(family: PrometheusFamily, suffix: str, start: int, now: int) -> list[NumberDataPoint]:
    return [
        NumberDataPoint(attributes=_labels(s.labels), start_time_unix_nano=start, time_unix_nano=now, value=s.value)
        for s in family.samples
        if s.name == family.name + suffix
    ]


def _histogram_points(family: PrometheusFamily, start: int, now: int) -> list[HistogramDataPoint]:
    """Prometheus buckets are cumulative `le` counts; OTLP wants the count of each bucket alone."""
    series: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}
    for sample in family.samples:
        key = tuple(sorted(_labels(sample.labels, drop="le").items()))
        entry = series.setdefault(key, {"buckets": [], "count": 0, "sum": 0.0})
        if sample.name.endswith("_bucket"):
            entry["buckets"].append((float(sample.labels["le"]), sample.value))
        elif sample.name.endswith("_count"):
            entry["count"] = int(sample.value)
        elif sample.name.endswith("_sum"):
            entry["sum"] = sample.value
    points = []
    for key, entry in series.items():
        buckets = sorted(entry["buckets"])
        cumulative = [int(count) for _, count in buckets]
        counts = [c - p for c, p in zip(cumulative, [0, *cumulative[:-1]], strict=True)]
        points.append(
            HistogramDataPoint(
                attributes=dict(key),
                start_time_unix_nano=start,
                time_unix_nano=now,
                count=entry["count"],
                sum=entry["sum"],
                bucket_counts=counts,
                explicit_bounds=[bound for bound, _ in buckets if bound != float("inf")],
                # Prometheus histograms keep neither; OTLP marks them optional.
                min=None,  # type: ignore[arg-type]
                max=None,  # type: ignore[arg-type]
            )
        )
    return points


def to_otlp(families: Iterable[PrometheusFamily], start: int, now: int) -> list[Metric]:
    """Prometheus metric families as OTLP metrics: counters as cumulative monotonic sums (named
    without `_total`, which OTLP-to-Prometheus conversion adds back), gauges as gauges,
    histograms as explicit-bucket histograms. Other kinds are not exported."""
    metrics = []
    cumulative = AggregationTemporality.CUMULATIVE
    for family in families:
        data: Sum | Gauge | Histogram
        if family.type == "counter":
            data = Sum(_numbers(family, "_total", start, now), cumulative, is_monotonic=True)
        elif family.type == "gauge":
            data = Gauge(_numbers(family, "", start, now))
        elif family.type == "histogram":
            data = Histogram(_histogram_points(family, start, now), cumulative)
        else:
            continue
        if data.data_points:
            metrics.append(Metric(name=family.name, description=family.documentation, unit="", data=data))
    return metrics


class MetricsToOtlp:
    """Exports the Prometheus registry over OTLP from a daemon thread, and once more at exit."""

    def __init__(
        self,
        exporter: MetricExporter,
        resource: Resource,
        interval_seconds: float,
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        self.exporter = exporter
        self.resource = resource
        self.interval_seconds = interval_seconds
        self.registry = registry
        self._start = time.time_ns()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="otlp-metrics", daemon=True)

    def start(self) -> None:
        self._thread.start()
        atexit.register(self.shutdown)

    def export_once(self) -> None:
        metrics = to_otlp(self.registry.collect(), self._start, time.time_ns())
        data = MetricsData([ResourceMetrics(self.resource, [ScopeMetrics(_SCOPE, metrics, "")], "")])
        self.exporter.export(data)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_seconds):
            try:
                self.export_once()
            except Exception:
                log.warning("metrics export over OTLP failed", exc_info=True)

    def shutdown(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        try:
            self.export_once()
        except Exception:
            log.warning("last metrics export over OTLP failed", exc_info=True)
        self.exporter.shutdown()
