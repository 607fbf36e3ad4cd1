"""`GET /v1/usage`, and the plan's quota as the create route hands it to the jobs service."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import Field
from starlette.requests import Request

from printcloud.api_gateway.domain.identity import Identity
from printcloud.api_gateway.transport.auth import ReadKey
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import scope_of
from printcloud.api_gateway.transport.openapi import documented
from printcloud.api_gateway.transport.responses import Sent
from printcloud.api_gateway.transport.schemas import NoQuery
from printcloud.core import rpc
from printcloud.core.errors import ApiError
from printcloud.v1 import jobs_pb2

router = APIRouter(prefix="/v1", tags=["account"])

LIVE = "live"


class Period(Sent):
    start: str = Field(description="First instant of the period (UTC)")
    end: str = Field(description="First instant of the next period (UTC)")


class LivePrints(Sent):
    used: int = Field(description="Live prints counted this period: one per live job created")
    quota: int = Field(description="Live prints the plan allows per calendar month")
    remaining: int = Field(description="quota - used, never below 0")


class TestJobs(Sent):
    today: int = Field(description="Test jobs created this UTC day")
    dailyCap: int = Field(description="Test jobs allowed per UTC day")
    remaining: int
    period: Period


class Usage(Sent):
    """The organization's usage, the same for its live and test keys."""

    plan: str
    period: Period = Field(description="The calendar month (UTC) live prints are counted in")
    livePrints: LivePrints
    testJobs: TestJobs
    upgradeUrl: str = Field(description="Where the plan is changed")


def with_quota(request: jobs_pb2.CreateJobRequest, identity: Identity, deps: GatewayDeps) -> None:
    """Live jobs carry their plan's quota; the jobs service counts and checks it in the creating
    transaction (docs/internals.md, "Plans and quotas")."""
    if identity.mode == LIVE:
        request.live_print_quota = deps.plans.quota(identity.plan)


def with_upgrade_url(error: ApiError, deps: GatewayDeps) -> ApiError:
    if error.code == "quota_exceeded":
        error.details.setdefault("upgrade_url", deps.upgrade_url)
    return error


@router.get("/usage", **documented(200, Usage))
async def get_usage(request: Request, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> Usage:
    deps: GatewayDeps = request.app.state.deps
    counts = await rpc.call(deps.jobs.GetUsage, jobs_pb2.GetUsageRequest(scope=scope_of(identity)))
    quota = deps.plans.quota(identity.plan)
    return Usage(
        plan=identity.plan,
        period=Period(start=counts.period_start, end=counts.period_end),
        livePrints=LivePrints(used=counts.live_prints, quota=quota, remaining=max(0, quota - counts.live_prints)),
        testJobs=TestJobs(
            today=counts.test_jobs_today,
            dailyCap=counts.test_jobs_per_day,
            remaining=max(0, counts.test_jobs_per_day - counts.test_jobs_today),
            period=Period(start=counts.day_start, end=counts.day_end),
        ),
        upgradeUrl=deps.upgrade_url,
    )
