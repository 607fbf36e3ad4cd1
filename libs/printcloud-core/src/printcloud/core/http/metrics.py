"""HTTP RED metrics of the services that serve HTTP (the two gateways, through
`core.http.request_context`).

Labels stay bounded whatever a caller sends: a method outside the standard ones is counted as
`other`, a path that matches no route as `unmatched`, and ids never become labels (route templates).
"""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import Histogram
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

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
