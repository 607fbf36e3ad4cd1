import json
import logging
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from printcloud.core.telemetry.logs import JsonFormatter
from printcloud.core.telemetry.request_ids import request_id_var
from printcloud.core.telemetry.traces import (
    ProviderOfExportedSpans,
    activate_carrier,
    carrier_headers,
    configure_telemetry,
)
from tests.support.spans import RecordedSpans

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def _format(message: str, **extra: object) -> dict[str, Any]:
    record = logging.makeLogRecord({"name": "t", "levelname": "INFO", "msg": message, **extra})
    formatted: dict[str, Any] = json.loads(JsonFormatter("svc").format(record))
    return formatted


def test_log_lines_are_json_with_service_and_extra_fields() -> None:
    line = _format("hello", job_id="j1")
    assert line["service"] == "svc" and line["msg"] == "hello" and line["job_id"] == "j1"
    assert "request_id" not in line


def test_a_carrier_continues_the_trace_and_request_id() -> None:
    configure_telemetry("svc")
    carrier = {"traceparent": f"00-{TRACE_ID}-00f067aa0ba902b7-01", "x-request-id": "req-1"}
    with activate_carrier(carrier, "handle", SpanKind.SERVER):
        line = _format("inside")
        onward = carrier_headers()
    assert line["trace_id"] == TRACE_ID and line["request_id"] == "req-1"
    assert TRACE_ID in onward["traceparent"] and onward["x-request-id"] == "req-1"
    assert request_id_var.get() is None, "the request id does not leak past the span"


def test_spans_on_the_hot_paths_reuse_one_tracer(spans: RecordedSpans, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request, RPC and message starts a span; looking the tracer up each time is a cost of its own."""
    lookups: list[str] = []
    real_get_tracer = trace.get_tracer

    def counted(name: str, *args: Any, **kwargs: Any) -> trace.Tracer:
        lookups.append(name)
        return real_get_tracer(name, *args, **kwargs)

    monkeypatch.setattr(trace, "get_tracer", counted)
    for _ in range(3):
        with activate_carrier({}, "handle", SpanKind.SERVER):
            pass
    assert lookups == []
    assert len(spans.named("handle")) == 3, "the spans are still recorded"


def test_spans_are_recorded_only_once_a_processor_takes_them() -> None:
    """Without an exporter, recording spans cost CPU for nothing; their trace context is still made and carried."""
    provider = ProviderOfExportedSpans(Resource.create({"service.name": "svc"}))
    tracer = provider.get_tracer("test")
    parent = trace.set_span_in_context(
        trace.NonRecordingSpan(
            trace.SpanContext(int(TRACE_ID, 16), 0x00F067AA0BA902B7, is_remote=True, trace_flags=trace.TraceFlags(1))
        )
    )
    unexported = tracer.start_span("handle", context=parent)
    assert not unexported.is_recording()
    assert format(unexported.get_span_context().trace_id, "032x") == TRACE_ID

    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    exported = tracer.start_span("handle", context=parent)
    assert exported.is_recording()
    exported.end()
    assert [span.name for span in exporter.get_finished_spans()] == ["handle"]
    assert format(exporter.get_finished_spans()[0].context.trace_id, "032x") == TRACE_ID
