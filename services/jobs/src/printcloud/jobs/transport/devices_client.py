"""The printers the jobs service prints to, as the devices service knows them."""

from __future__ import annotations

import uuid

from printcloud.core import rpc
from printcloud.core.scope import Scope, scope_to_proto
from printcloud.v1 import devices_pb2, devices_pb2_grpc


class DevicesPrinterDirectory:
    def __init__(self, stub: devices_pb2_grpc.DevicesStub) -> None:
        self.stub = stub

    async def get_printer(self, scope: Scope, printer_id: uuid.UUID) -> devices_pb2.Printer:
        """Devices checks the scope itself: its `404 not_found` reaches the caller unchanged."""
        request = devices_pb2.GetPrinterRequest(scope=scope_to_proto(scope), id=str(printer_id))
        return await rpc.call(self.stub.GetPrinter, request)
