"""Wiring of the virtual-fleet process, `python -m printcloud.virtual_fleet`: the devices channel,
the fleet loop (`workers/fleet.py`) and the ops server. A package of its own so that the devices
server never loads the agent client the fleet runs."""

from __future__ import annotations

from collections.abc import Awaitable

from printcloud.core import rpc
from printcloud.core.process.lifecycle import run_until_stopped, setup_process
from printcloud.core.rpc import service_auth
from printcloud.core.telemetry.ops import Readiness, serve_ops
from printcloud.v1 import devices_pb2_grpc
from printcloud.virtual_fleet.settings import Settings
from printcloud.virtual_fleet.transport.devices_client import DevicesClient
from printcloud.virtual_fleet.workers.fleet import VirtualFleet


async def main() -> None:
    settings = Settings.load()
    setup_process(settings)
    readiness = Readiness()
    devices_channel = rpc.channel(settings.devices_grpc_target, settings.caller(service_auth.VIRTUAL_FLEET))
    fleet = VirtualFleet(DevicesClient(devices_pb2_grpc.DevicesStub(devices_channel)), settings)
    tasks: list[Awaitable[None]] = [fleet.run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))
    readiness.mark_started()
    await run_until_stopped(tasks, [devices_channel.close])
