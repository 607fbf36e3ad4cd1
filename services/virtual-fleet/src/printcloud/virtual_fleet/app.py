"""Wiring of the virtual-fleet process, `python -m printcloud.virtual_fleet`: the devices channel,
the fleet loop (`workers/fleet.py`) and the ops server. A package of its own so that the devices
server never loads the agent client the fleet runs."""

from __future__ import annotations

from printcloud.core import rpc
from printcloud.core.process.bare_process import BareProcess
from printcloud.core.rpc import service_auth
from printcloud.v1 import devices_pb2_grpc
from printcloud.virtual_fleet.settings import Settings
from printcloud.virtual_fleet.transport.devices_client import DevicesClient
from printcloud.virtual_fleet.workers.fleet import VirtualFleet


async def main() -> None:
    settings = Settings.load()
    process = BareProcess.start(settings)

    devices_channel = rpc.channel(settings.devices_grpc_target, settings.caller(service_auth.VIRTUAL_FLEET))
    process.on_stop(devices_channel.close)
    fleet = VirtualFleet(DevicesClient(devices_pb2_grpc.DevicesStub(devices_channel)), settings)
    process.run(fleet.run())

    await process.run_until_stopped()
