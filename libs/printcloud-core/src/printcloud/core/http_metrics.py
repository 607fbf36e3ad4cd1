"""HTTP RED metrics and server spans for the services that serve HTTP (the two gateways).

Labels stay bounded whatever a caller sends: a method outside the standard ones is counted as
`other`, a path that matches no route as `unmatched`, and ids never become labels (route templates).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from opentelemetry.trace import SpanKind
from prometheus_client import Histogram
from starlette.datastructures import Headers
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from printcloud.core.telemetry import activate_carrier

HTTP_REQUESTS = Histogram(
    "printcloud_http_request_duration_seconds",
    "HTTP requests served, by method, route template and status",
    ["method", "route", "status"],
)

STANDARD_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED_ROUTE = "unmatched"
# W3C trace context headers.
TRACE_HEADERS = ("traceparent", "tracestate", "baggage")


def method_label(method: str) -> str:
    return method if method in STANDARD_METHODS else "other"


def route_label(scope: Scope, routes: Sequence[BaseRoute] = ()) -> str:
    """The route template that served the request (FastAPI records it; plain Starlette routes are
    matched against `routes` again), or `unmatched`."""
    template = getattr(scope.get("route"), "path", None)
    if template:
        return str(template)
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return str(getattr(route, "path", UNMATCHED_ROUTE))
    return UNMATCHED_ROUTE


def observe(method: str, route: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(method_label(method), route, str(status)).observe(seconds)


class HttpTelemetry:
    """ASGI middleware for plain Starlette apps: a server span continuing the caller's trace, and
    the RED metrics. WebSockets pass through untouched (they are counted as connections)."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        carrier = {name: headers[name] for name in TRACE_HEADERS if name in headers}
        status = 500

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        began = time.perf_counter()
        method = method_label(scope["method"])
        with activate_carrier(carrier, f"HTTP {method}", SpanKind.SERVER) as span:
            try:
                await self.app(scope, receive, send_noting_status)
            finally:
                route = route_label(scope, self.routes)
                span.update_name(f"{method} {route}")
                span.set_attribute("http.request.method", method)
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status)
                observe(method, route, status, time.perf_counter() - began)
