"""Per-request context for everything below it: the request id, the trace, metrics, and the last-resort 500."""

from __future__ import annotations

import logging
import time

from opentelemetry.trace import SpanKind
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from printcloud.api_gateway.transport.envelope import error_response
from printcloud.core.errors import ApiError
from printcloud.core.http_metrics import TRACE_HEADERS, method_label, observe, route_label
from printcloud.core.request_ids import request_id_for
from printcloud.core.telemetry import REQUEST_ID_HEADER, activate_carrier

log = logging.getLogger(__name__)


class RequestContextMiddleware:
    """Pure ASGI (not BaseHTTPMiddleware) so the context variables it sets reach the handlers.

    It sits inside Starlette's ServerErrorMiddleware, whose 500 would skip this layer's
    X-Request-Id header, so it answers unexpected exceptions itself.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        request_id = request_id_for(headers.get(REQUEST_ID_HEADER))
        carrier = {name: headers[name] for name in TRACE_HEADERS if name in headers}
        carrier[REQUEST_ID_HEADER] = request_id
        status = 500
        started = False

        async def send_with_request_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                MutableHeaders(scope=message).append("X-Request-Id", request_id)
            await send(message)

        began = time.perf_counter()
        method = method_label(scope["method"])
        with activate_carrier(carrier, f"HTTP {method}", SpanKind.SERVER) as span:
            try:
                await self.app(scope, receive, send_with_request_id)
            except Exception:
                log.exception("unhandled error", extra={"method": scope["method"], "path": scope["path"]})
                if started:
                    raise  # too late for an envelope; let the server abort the response
                await error_response(ApiError("internal_error", "An internal error occurred."))(
                    scope, receive, send_with_request_id
                )
            finally:
                route = route_label(scope)
                span.update_name(f"{method} {route}")
                span.set_attribute("http.request.method", method)
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status)
                elapsed = time.perf_counter() - began
                observe(method, route, status, elapsed)
                # The route template, not the path, and never headers: keys must not reach the logs.
                log.info(
                    "request served",
                    extra={"method": method, "route": route, "status": status, "ms": round(elapsed * 1000, 1)},
                )
