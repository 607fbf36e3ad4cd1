"""The outermost layer of both public HTTP applications: the request id, the server span and RED
metrics, the security headers, and the last-resort 500, the same on both ports."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from opentelemetry.trace import SpanKind
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from printcloud.contracts.errors import ApiError
from printcloud.core.http.error_envelope import add_security_headers, error_response
from printcloud.core.http.metrics import TRACE_HEADERS, method_label, observe, route_label
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, request_id_for
from printcloud.core.telemetry.traces import activate_carrier

log = logging.getLogger(__name__)

NO_WEBSOCKET = ApiError("not_found", "No WebSocket endpoint at this path.")


class RequestContext:
    """Pure ASGI (not BaseHTTPMiddleware) so the context variables it sets reach the handlers.

    It sits inside Starlette's ServerErrorMiddleware, whose 500 would skip this layer's headers, so
    it answers unexpected exceptions itself. `routes` are matched again for the route label of a
    plain Starlette application (FastAPI records the route it took).

    A WebSocket upgrade that reaches it has no endpoint: each gateway routes the WebSocket it
    serves before its HTTP stack. It is refused with a 404 in the envelope, not the bare 403 the
    router's close before the handshake would give.
    """

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute] = ()) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            client_id = Headers(scope=scope).get(REQUEST_ID_HEADER)
            await error_response(NO_WEBSOCKET, request_id=request_id_for(client_id))(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        request_id = request_id_for(headers.get(REQUEST_ID_HEADER))
        carrier = {name: headers[name] for name in TRACE_HEADERS if name in headers}
        carrier[REQUEST_ID_HEADER] = request_id
        status = 500
        started = False

        async def send_with_context(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                response_headers = MutableHeaders(scope=message)
                response_headers.setdefault(REQUEST_ID_HEADER, request_id)
                add_security_headers(response_headers)
            await send(message)

        began = time.perf_counter()
        method = method_label(scope["method"])
        with activate_carrier(carrier, f"HTTP {method}", SpanKind.SERVER) as span:
            try:
                await self.app(scope, receive, send_with_context)
            except Exception:
                log.exception("unhandled error", extra={"method": scope["method"], "path": scope["path"]})
                if started:
                    raise  # too late for an envelope; let the server abort the response
                await error_response(ApiError("internal_error", "An internal error occurred."))(
                    scope, receive, send_with_context
                )
            finally:
                route = route_label(scope, self.routes)
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
