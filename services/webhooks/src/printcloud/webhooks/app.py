"""Wiring of the webhooks process."""

from __future__ import annotations

from printcloud.core import rpc
from printcloud.core.migrations import migrate
from printcloud.core.ops import Readiness, serve_ops
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.v1 import webhooks_pb2_grpc
from printcloud.webhooks.settings import Settings
from printcloud.webhooks.transport.grpc_servicer import WebhooksServicer

SCHEMA = "webhooks"


async def main() -> None:
    settings = Settings()
    setup_process(settings)
    readiness = Readiness()
    tasks = []
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))
    await migrate(settings.database_url, SCHEMA, "printcloud.core.sql")
    await migrate(settings.database_url, SCHEMA, "printcloud.webhooks.persistence.migrations")
    server = rpc.create_server()
    webhooks_pb2_grpc.add_WebhooksServicer_to_server(WebhooksServicer(), server)
    await rpc.start_server(server, settings.grpc_listen)
    readiness.mark_started()
    await run_until_stopped(tasks, [lambda: server.stop(grace=5)])
