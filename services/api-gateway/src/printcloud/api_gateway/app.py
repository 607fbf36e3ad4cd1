"""Wiring of the gateway process: database, outbox relay, gRPC clients and the HTTP server."""

from __future__ import annotations

import asyncio
import logging

from printcloud.api_gateway.domain.plans import PlanCatalog
from printcloud.api_gateway.persistence.key_changes import listen_for_key_changes
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.persistence.redis_rate_limits import RedisWindow
from printcloud.api_gateway.persistence.redis_url import SETTING as REDIS_SETTING
from printcloud.api_gateway.persistence.redis_url import first_redis_problem, redacted
from printcloud.api_gateway.persistence.schema import migrate_gateway
from printcloud.api_gateway.persistence.tables import outbox
from printcloud.api_gateway.persistence.verified_keys import VerifiedKeys
from printcloud.api_gateway.settings import Settings
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.api_gateway.use_cases.accounts import Accounts
from printcloud.core import rpc
from printcloud.core.http import edge_http
from printcloud.core.periodic import run_periodically
from printcloud.core.process.service_process import ServiceProcess
from printcloud.core.rpc import service_auth
from printcloud.core.telemetry.ops import serve_app, stop_app
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc, webhooks_pb2_grpc

log = logging.getLogger(__name__)

SESSION_PURGE_SECONDS = 3600


async def check_redis(url: str) -> None:
    """One command to the shared rate-limit store before serving. TLS or login settings that
    cannot work stop the start in one line naming the setting: left running, every replica would
    limit alone for ever behind a store it never reaches. A store that is down only means limits
    per replica until it answers (`persistence/rate_limiter.py`)."""
    problem = await first_redis_problem(url)
    if problem is None:
        return
    details = {"setting": REDIS_SETTING, "url": redacted(url), "reason": problem.reason}
    if problem.misconfigured:
        log.error(problem.sentence("rate-limit store", REDIS_SETTING, redacted(url)), extra=details)
        raise SystemExit(1)
    log.warning("rate-limit store does not answer at start-up; limiting per replica until it does", extra=details)


async def main() -> None:
    settings = Settings.load()
    process = await ServiceProcess.start(settings, migrate_gateway)
    if settings.redis_url:
        await check_redis(settings.redis_url)
    # The CLI writes `organization.created` to the outbox; this relay is what publishes it.
    await process.relay_outbox(outbox)

    caller = settings.caller(service_auth.API_GATEWAY)
    channels = {name: rpc.channel(target, caller) for name, target in (
        ("jobs", settings.jobs_grpc_target),
        ("devices", settings.devices_grpc_target),
        ("webhooks", settings.webhooks_grpc_target),
    )}  # fmt: skip
    for channel in channels.values():
        process.on_stop(channel.close)
    limit = settings.rate_limit_per_second
    shared = (
        RedisWindow.connect(settings.redis_url, limit, settings.rate_limit_key_prefix, settings.redis_timeout_seconds)
        if settings.redis_url
        else None
    )
    rate_limiter = RateLimiter(limit, shared)
    process.on_stop(rate_limiter.close)
    verified_keys = VerifiedKeys()
    process.run(listen_for_key_changes(settings.database_url, verified_keys))
    deps = GatewayDeps(
        accounts=Accounts(process.db),
        jobs=jobs_pb2_grpc.JobsStub(channels["jobs"]),
        devices=devices_pb2_grpc.DevicesStub(channels["devices"]),
        webhooks=webhooks_pb2_grpc.WebhooksStub(channels["webhooks"]),
        agent_gateway_public_url=settings.agent_gateway_public_url,
        rate_limiter=rate_limiter,
        plans=PlanCatalog(settings.plans),
        upgrade_url=settings.upgrade_url,
        dashboard=settings,
        verified_keys=verified_keys,
    )
    # The main port serves the health checks too; /metrics only on the ops port (PRINTCLOUD_OPS_PORT).
    server, http_task = await serve_app(
        create_app(deps, service_name=settings.service_name),
        settings.http_host,
        settings.http_port,
        "api-gateway",
        **edge_http.server_options(edge_http.limits_from(settings)),
    )
    log.info("api gateway listening", extra={"host": settings.http_host, "port": settings.http_port})
    # Shielded: on stop, `stop_app` lets requests in flight finish instead of cancelling them; it is
    # the last cleanup added, so it runs first, while the channels and the database are still open.
    process.run(asyncio.shield(http_task))
    process.on_stop(lambda: stop_app(server, http_task))
    process.run(run_periodically(deps.sign_in.purge, SESSION_PURGE_SECONDS, "session and sign-in code purge"))
    await process.run_until_stopped()
