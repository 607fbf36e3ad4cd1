"""`GET /v1/usage`, and the plan's quota as the create route hands it to the jobs service."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.requests import Request

from printcloud.api_gateway.domain.identity import Identity
from printcloud.api_gateway.transport.auth import ReadKey
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import scope_of
from printcloud.api_gateway.transport.openapi import documented
from printcloud.api_gateway.transport.schemas import NoQuery
from printcloud.contracts.errors import ApiError
from printcloud.contracts.resources import LivePrints, TestJobs, Usage, UsagePeriod
from printcloud.core import rpc
from printcloud.v1 import jobs_pb2

router = APIRouter(prefix="/v1", tags=["account"])

LIVE = "live"


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
    """Usage of the current period

    Live prints counted this calendar month (UTC) against the plan's quota, and test jobs created this
    UTC day against the daily cap. The same for the organization's live and test keys.

    Scope: `read`.

    Example: `GET /v1/usage`.
    """
    deps: GatewayDeps = request.app.state.deps
    counts = await rpc.call(deps.jobs.GetUsage, jobs_pb2.GetUsageRequest(scope=scope_of(identity)))
    quota = deps.plans.quota(identity.plan)
    return Usage(
        plan=identity.plan,
        period=UsagePeriod(start=counts.period_start, end=counts.period_end),
        livePrints=LivePrints(used=counts.live_prints, quota=quota, remaining=max(0, quota - counts.live_prints)),
        testJobs=TestJobs(
            today=counts.test_jobs_today,
            dailyCap=counts.test_jobs_per_day,
            remaining=max(0, counts.test_jobs_per_day - counts.test_jobs_today),
            period=UsagePeriod(start=counts.day_start, end=counts.day_end),
        ),
        upgradeUrl=deps.upgrade_url,
    )
