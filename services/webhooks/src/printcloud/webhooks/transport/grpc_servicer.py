from __future__ import annotations

import grpc

from printcloud.v1 import common_pb2, webhooks_pb2_grpc


class WebhooksServicer(webhooks_pb2_grpc.WebhooksServicer):
    async def Ping(self, request: common_pb2.Empty, context: grpc.aio.ServicerContext) -> common_pb2.Empty:
        return common_pb2.Empty()
