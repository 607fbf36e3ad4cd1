"""OpenTelemetry traces for every process, and the trace context with the request id as they travel.

The request id and the trace context travel together: the gateway sets both per request, gRPC
metadata and Kafka headers carry them (`carrier_headers` / `activate_carrier`), and every log
line names them (`logs`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, Sampler, SamplingResult
from opentelemetry.util.types import Attributes

from printcloud.core.telemetry import otlp
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, request_id_var


def resource_for(service: str, instance_id: str = "") -> Resource:
    """`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win over the process's own names."""
    attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": service}
    if instance_id:
        attributes["service.instance.id"] = instance_id
    return Resource.create(attributes)


class _RecordedOnceExported(Sampler):
    """The configured sampler once spans go somewhere; until then, no span is recorded."""

    def __init__(self, configured: Sampler) -> None:
        self.configured = configured
        self.exported = False

    def should_sample(
        self,
        parent_context: otel_context.Context | None,
        trace_id: int,
        name: str,
        kind: trace.SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[trace.Link] | None = None,
        trace_state: trace.TraceState | None = None,
    ) -> SamplingResult:
        if self.exported:
            return self.configured.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)
        return ALWAYS_OFF.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def get_description(self) -> str:
        return f"RecordedOnceExported{{{self.configured.get_description()}}}"


class ProviderOfExportedSpans(TracerProvider):
    """A tracer provider that records spans only once a processor takes them (an exporter, a test's
    in-memory one). Without an exporter, every span was still recorded (its attributes, timing and
    end) and dropped, on every statement, call and message (docs/performance.md, "Reads on the
    driver, spans not recorded for nobody"). Trace context is made and carried as before, so log
    lines and onward calls keep their trace and request ids."""

    def __init__(self, resource: Resource) -> None:
        super().__init__(resource=resource)
        self._recorded_once_exported = _RecordedOnceExported(self.sampler)
        self.sampler = self._recorded_once_exported

    def add_span_processor(self, span_processor: SpanProcessor) -> None:
        super().add_span_processor(span_processor)
        self._recorded_once_exported.exported = True


def configure_telemetry(service: str, exporter: str = "auto", instance_id: str = "") -> None:
    """Sets the process's tracer provider and, when OTLP export is wanted, starts exporting spans
    and metrics (see `printcloud.core.telemetry.otlp`). Without an exporter, spans are not recorded: trace ids
    still reach logs and headers."""
    resource = resource_for(service, instance_id)
    # The sampler is read from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (parent-based by default).
    provider = ProviderOfExportedSpans(resource)
    if exporter == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    elif otlp.otlp_wanted(exporter):
        if otlp.signal_enabled("traces"):
            provider.add_span_processor(BatchSpanProcessor(otlp.span_exporter()))
        if otlp.signal_enabled("metrics"):
            otlp.MetricsToOtlp(otlp.metric_exporter(), resource, otlp.metric_interval_seconds()).start()
    trace.set_tracer_provider(provider)


# Taken once: the SDK's get_tracer builds a scope, takes a lock and rewrites the warning filters
# on every call, and spans start on every request, RPC and message. Taken before the provider is
# set, it is a proxy that binds to the provider's tracer on its first span after that.
_TRACER = trace.get_tracer("printcloud")


def tracer() -> trace.Tracer:
    return _TRACER


def carrier_headers() -> dict[str, str]:
    """The current trace context and request id as headers for HTTP, gRPC metadata or Kafka."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    request_id = request_id_var.get()
    if request_id:
        carrier[REQUEST_ID_HEADER] = request_id
    return carrier


@contextlib.contextmanager
def activate_carrier(carrier: Mapping[str, str], span_name: str, kind: trace.SpanKind) -> Iterator[trace.Span]:
    """Continues the trace and request id found in `carrier` for the duration of a span."""
    parent = propagate.extract(dict(carrier))
    token = otel_context.attach(parent)
    rid_token = request_id_var.set(carrier.get(REQUEST_ID_HEADER) or request_id_var.get())
    try:
        with tracer().start_as_current_span(span_name, kind=kind) as span:
            yield span
    finally:
        request_id_var.reset(rid_token)
        otel_context.detach(token)
