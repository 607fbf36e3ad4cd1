"""OTLP export: when it is on, and what reaches a real OTLP/HTTP receiver on 127.0.0.1 (spans with
the configured headers; the Prometheus registry's metrics, converted)."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from printcloud.core.telemetry import otlp
from tests.support.otlp_receiver import OtlpReceiver


@pytest.mark.parametrize(
    ("setting", "environ", "wanted"),
    [
        ("auto", {}, False),
        ("auto", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
        ("auto", {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
        ("otlp", {}, True),
        ("none", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, False),
        ("console", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, False),
        ("otlp", {"OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_export_is_off_unless_an_endpoint_or_the_setting_asks(
    setting: str, environ: dict[str, str], wanted: bool
) -> None:
    assert otlp.otlp_wanted(setting, environ) is wanted


def test_one_signal_can_be_turned_off() -> None:
    assert otlp.signal_enabled("traces", {}) and otlp.signal_enabled("metrics", {"OTEL_TRACES_EXPORTER": "none"})
    assert not otlp.signal_enabled("metrics", {"OTEL_METRICS_EXPORTER": "none"})


def test_spans_reach_the_endpoint_with_the_configured_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    with OtlpReceiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=printcloud")
        provider = TracerProvider(resource=Resource.create({"service.name": "unit"}))
        provider.add_span_processor(SimpleSpanProcessor(otlp.span_exporter()))
        with provider.get_tracer("t").start_as_current_span("outer"), provider.get_tracer("t").start_span("inner"):
            pass
        provider.shutdown()
    assert {(s.service, s.name) for s in receiver.spans} == {("unit", "outer"), ("unit", "inner")}
    outer, inner = sorted(receiver.spans, key=lambda s: s.name != "outer")
    assert inner.parent_span_id == outer.span_id and inner.trace_id == outer.trace_id
    assert all(headers["x-tenant"] == "printcloud" for _, headers in receiver.requests)


def test_the_prometheus_registry_is_exported_as_otlp_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = CollectorRegistry()
    Counter("demo_requests_total", "requests", ["code"], registry=registry).labels("200").inc(3)
    Gauge("demo_backlog_rows", "rows", registry=registry).set(7)
    latency = Histogram("demo_duration_seconds", "latency", buckets=(0.1, 1.0), registry=registry)
    for seconds in (0.05, 0.5, 0.7, 5.0):
        latency.observe(seconds)
    with OtlpReceiver(keep_metric_requests=True) as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        bridge = otlp.MetricsToOtlp(otlp.metric_exporter(), Resource.create({"service.name": "unit"}), 60, registry)
        bridge.export_once()
    metrics = {m.name: m for r in receiver.metric_requests for rm in r.resource_metrics for s in rm.scope_metrics
               for m in s.metrics}  # fmt: skip
    assert set(metrics) == {"demo_requests", "demo_backlog_rows", "demo_duration_seconds"}
    (requests,) = metrics["demo_requests"].sum.data_points
    assert metrics["demo_requests"].sum.is_monotonic and requests.as_double == 3
    assert [a.value.string_value for a in requests.attributes] == ["200"]
    assert metrics["demo_backlog_rows"].gauge.data_points[0].as_double == 7
    (histogram,) = metrics["demo_duration_seconds"].histogram.data_points
    assert histogram.count == 4 and histogram.sum == pytest.approx(6.25)
    assert list(histogram.explicit_bounds) == [0.1, 1.0] and list(histogram.bucket_counts) == [1, 2, 1]


def test_an_unreadable_interval_falls_back_to_the_default() -> None:
    assert otlp.metric_interval_seconds({"OTEL_METRIC_EXPORT_INTERVAL": "2000"}) == 2.0
    assert otlp.metric_interval_seconds({"OTEL_METRIC_EXPORT_INTERVAL": "soon"}) == 60.0
