"""Wiring: gRPC clients, the use cases, the Kafka command consumer, the instance heartbeat and the
HTTP/WebSocket server."""

from __future__ import annotations

import asyncio
import secrets

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.agent_gateway.settings import Settings
from printcloud.agent_gateway.transport.agent_command_events import AgentCommandEventsHandler
from printcloud.agent_gateway.transport.agent_socket import AgentSocket, busy_upgrade_refusal
from printcloud.agent_gateway.transport.devices_client import DevicesClient
from printcloud.agent_gateway.transport.errors import method_not_allowed, not_found
from printcloud.agent_gateway.transport.job_files import JobFiles
from printcloud.agent_gateway.transport.jobs_client import JobsClient
from printcloud.agent_gateway.transport.lean_websocket import LeanWebSocketProtocol
from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.agent_gateway.use_cases.jobs import AgentJobs
from printcloud.agent_gateway.workers.agents_seen import AgentsSeen
from printcloud.agent_gateway.workers.instance_heartbeat import InstanceHeartbeat
from printcloud.core import rpc
from printcloud.core.http import edge_http
from printcloud.core.http.request_context import RequestContext
from printcloud.core.kafka import bus
from printcloud.core.kafka.broker_epoch import BrokerEpoch
from printcloud.core.kafka.topics import AGENT_COMMANDS
from printcloud.core.process.bare_process import BareProcess
from printcloud.core.process.service_process import check_kafka
from printcloud.core.rpc import service_auth
from printcloud.core.telemetry.ops import EmbeddedServer, ReadinessCheck, health_routes, serve_app, stop_app
from printcloud.protocol.constants import WS_PATH
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc


def create_app(agents: Agents, jobs: AgentJobs, service_name: str, ready: ReadinessCheck | None = None) -> ASGIApp:
    routes = [
        Route("/agent/v1/jobs/{job_id}/file", JobFiles(jobs).get),
        *health_routes(service_name, ready),
    ]
    http = Starlette(
        routes=routes,
        middleware=[Middleware(RequestContext, routes=routes)],
        exception_handlers={404: not_found, 405: method_not_allowed},
    )
    # Its redirect of a path with a trailing slash names the host the client sent in `Host`; agents
    # call exact paths, so such a path is a 404.
    http.router.redirect_slashes = False
    agent_socket = AgentSocket(agents, jobs)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        # The agents' WebSocket bypasses the HTTP stack (its middleware and router, which do
        # nothing for it): a connection is held for hours, and each layer's frame, held with it,
        # was a tenth of an idle agent's memory (docs/performance.md).
        if scope["type"] == "websocket" and scope["path"] == WS_PATH:
            await agent_socket.handle(WebSocket(scope, receive, send))
        else:
            await http(scope, receive, send)

    return app


async def start_http(
    app: ASGIApp,
    host: str,
    port: int,
    ping_seconds: float,
    max_message_bytes: int = AgentLimits.max_message_bytes,
    limits: edge_http.EdgeLimits = edge_http.DEFAULT_LIMITS,
    upgrade_refusal: edge_http.UpgradeRefusal = edge_http.serve_every_upgrade,
) -> tuple[EmbeddedServer, asyncio.Task[None]]:
    """Serves `app` in the running loop; returns once it listens (port 0 picks a free port).

    A message over `max_message_bytes` closes the connection with 1009 before it is buffered whole;
    an upgrade `upgrade_refusal` refuses is answered before a WebSocket exists for it.
    """
    return await serve_app(
        app,
        host,
        port,
        "agent-gateway-http",
        ws_ping_interval=ping_seconds,
        ws_ping_timeout=ping_seconds,
        ws_max_size=max_message_bytes,
        # Agent messages are small JSON; a deflate context per connection would cost more memory
        # than the whole rest of an idle agent (docs/performance.md).
        ws_per_message_deflate=False,
        **edge_http.server_options(limits, upgrade_refusal, LeanWebSocketProtocol),
    )


async def main() -> None:
    settings = Settings.load()
    instance_id = settings.instance_id or secrets.token_hex(6)
    process = BareProcess.start(settings)
    await check_kafka(settings)

    caller = settings.caller(service_auth.AGENT_GATEWAY)
    devices_channel = rpc.channel(settings.devices_grpc_target, caller)
    process.on_stop(devices_channel.close)
    jobs_channel = rpc.channel(settings.jobs_grpc_target, caller)
    process.on_stop(jobs_channel.close)
    devices = DevicesClient(devices_pb2_grpc.DevicesStub(devices_channel))
    agents = Agents(devices, instance_id, settings.heartbeat_seconds, settings.agent_limits)
    jobs = AgentJobs(
        JobsClient(jobs_pb2_grpc.JobsStub(jobs_channel)),
        devices,
        file_token_secret=settings.file_token_secret.get_secret_value(),
        file_token_ttl_seconds=settings.file_token_ttl_seconds,
    )

    instance_heartbeat = InstanceHeartbeat(agents, settings.instance_heartbeat_seconds)
    await instance_heartbeat.register()
    # Beating from now on, not once the rest has started: a slow start must not look like death.
    process.run(asyncio.create_task(instance_heartbeat.run()))

    epoch = await BrokerEpoch.checked(settings.kafka_cluster(), settings.broker_check_seconds)
    process.run(epoch.run())
    process.on_stop(epoch.close)
    # A group of its own per replica, so every replica sees every command; it starts at the end
    # of the topic because it only acts for agents connected from now on.
    consumer = bus.Consumer(
        settings.kafka_cluster(),
        f"agent-gateway-{instance_id}",
        [AGENT_COMMANDS],
        AgentCommandEventsHandler(agents, jobs),
        epoch,
        start_at_end=True,
    )
    await consumer.start()
    process.on_stop(consumer.stop)
    process.run(consumer.run())
    process.run(consumer.report_lag())

    app = create_app(agents, jobs, settings.service_name, process.readiness)
    server, http_task = await start_http(
        app,
        settings.http_host,
        settings.http_port,
        settings.heartbeat_seconds,
        settings.agent_max_message_bytes,
        edge_http.limits_from(settings),
        busy_upgrade_refusal(agents),
    )
    process.on_stop(lambda: stop_app(server, http_task))

    async def serve_until_done() -> None:
        # Shielded: on stop, `stop_app` shuts the server down gracefully instead of cancelling it.
        await asyncio.shield(http_task)

    process.run(serve_until_done())
    process.run(AgentsSeen(agents, settings.heartbeat_seconds).run())
    await process.run_until_stopped()
