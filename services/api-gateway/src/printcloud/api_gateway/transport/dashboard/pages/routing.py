"""What every page module builds its routes with."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.requests import Request

from printcloud.api_gateway.transport.dashboard.web import PREFIX, DashboardRoute, Page, page
from printcloud.api_gateway.transport.deps import GatewayDeps

SignedIn = Annotated[Page, Depends(page)]


def dashboard_router() -> APIRouter:
    return APIRouter(prefix=PREFIX, route_class=DashboardRoute, include_in_schema=False)


def deps_of(request: Request) -> GatewayDeps:
    deps: GatewayDeps = request.app.state.deps
    return deps
