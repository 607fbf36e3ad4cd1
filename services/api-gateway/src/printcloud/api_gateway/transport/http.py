"""The public HTTP application. `create_app` only wires; everything it needs comes in `deps`."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig

from printcloud.api_gateway.transport.dashboard import pages as dashboard_pages
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.error_handlers import install_error_handlers
from printcloud.api_gateway.transport.openapi import install_openapi
from printcloud.api_gateway.transport.rate_limit import RateLimitMiddleware
from printcloud.api_gateway.transport.routes import (
    account,
    agent,
    computers,
    events,
    pairing_codes,
    printers,
    printjobs,
    usage,
    webhooks,
)
from printcloud.core.http.request_context import RequestContext
from printcloud.core.telemetry.ops import health_routes

API_VERSION = "1.0.0"
NATIVE_TELEMETRY_OFF: TelemetryConfig = {
    "tracing": False,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
    "auto_configure": False,
}


def _api_app() -> FastAPI:
    """The `/v1` routes and their document, without anything that serves them."""
    app = FastAPI(
        title="PrintCloud API",
        version=API_VERSION,
        openapi_url="/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
        # Starlette's redirect builds its Location from the Host header; the 404 handler redirects
        # instead, with a path (transport/error_handlers.py).
        redirect_slashes=False,
        # RequestContext makes the server span and the metrics (bounded labels, request
        # ids); FastAPI's own would be a second span naming raw paths, and an exporter of its own.
        telemetry=NATIVE_TELEMETRY_OFF,
    )
    # The routes themselves, in the same order, rather than `include_router`: an included router is
    # matched as a whole on every request (each of its routes tried, and the one chosen tried
    # again), a cost every request to a later router paid. The routers carry no settings of their
    # own beyond their prefix and tags, which their routes already hold.
    for module in (account, usage, computers, printers, printjobs, agent, pairing_codes, webhooks, events):
        app.router.routes.extend(module.router.routes)
    return app


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document the gateway serves at `/v1/openapi.json`, built without a running system
    (the SDKs are generated from it)."""
    app = _api_app()
    install_openapi(app)
    return app.openapi()


def create_app(deps: GatewayDeps, *, service_name: str = "api-gateway") -> FastAPI:
    app = _api_app()
    app.state.deps = deps
    app.include_router(dashboard_pages.router)
    app.router.routes.extend(health_routes(service_name, deps.accounts.db.answers))
    install_error_handlers(app)
    install_openapi(app)
    app.add_middleware(RateLimitMiddleware, limiter=deps.rate_limiter)
    app.add_middleware(RequestContext)  # added last: outermost
    return app
