"""An OTLP/HTTP receiver on 127.0.0.1: accepts protobuf POSTs to /v1/traces and /v1/metrics, as a
collector would, and keeps what it decoded for a test to inspect. Given an SSL context, it serves
HTTPS, as a collector behind a private CA does."""

from __future__ import annotations

import gzip
import ssl
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: int  # opentelemetry.proto.trace.v1.Span.SpanKind
    attributes: dict[str, Any]


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _service(resource: Any) -> str:
    return next((_value(a.value) for a in resource.attributes if a.key == "service.name"), "")


class OtlpReceiver:
    def __init__(self, *, keep_metric_requests: bool = False, tls: ssl.SSLContext | None = None) -> None:
        """`keep_metric_requests` keeps every metrics export whole; otherwise only the names, so
        that a receiver serving a whole test session stays small."""
        self.spans: list[ReceivedSpan] = []
        self.metric_names: dict[str, set[str]] = {}  # by service
        self.metric_requests: list[ExportMetricsServiceRequest] = []
        self._keep_metric_requests = keep_metric_requests
        self.requests: list[tuple[str, dict[str, str]]] = []  # (path, headers) of every export
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path == "/v1/traces":
                    receiver._traces(body, dict(self.headers))
                    answer = ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    receiver._metrics(body, dict(self.headers))
                    answer = ExportMetricsServiceResponse().SerializeToString()
                else:
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._scheme = "http"
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"{self._scheme}://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _traces(self, body: bytes, headers: dict[str, str]) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        received = [
            ReceivedSpan(
                service=_service(resource_spans.resource),
                trace_id=span.trace_id.hex(),
                span_id=span.span_id.hex(),
                parent_span_id=span.parent_span_id.hex(),
                name=span.name,
                kind=span.kind,
                attributes={a.key: _value(a.value) for a in span.attributes},
            )
            for resource_spans in request.resource_spans
            for scope_spans in resource_spans.scope_spans
            for span in scope_spans.spans
        ]
        with self._lock:
            self.spans += received
            self.requests.append(("/v1/traces", {k.lower(): v for k, v in headers.items()}))

    def _metrics(self, body: bytes, headers: dict[str, str]) -> None:
        request = ExportMetricsServiceRequest.FromString(body)
        with self._lock:
            if self._keep_metric_requests:
                self.metric_requests.append(request)
            for resource_metrics in request.resource_metrics:
                names = self.metric_names.setdefault(_service(resource_metrics.resource), set())
                names.update(m.name for s in resource_metrics.scope_metrics for m in s.metrics)
            self.requests.append(("/v1/metrics", {k.lower(): v for k, v in headers.items()}))

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        with self._lock:
            return [span for span in self.spans if span.trace_id == trace_id]
