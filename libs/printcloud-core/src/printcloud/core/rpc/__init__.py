"""gRPC between the services: `call` and `stream` over a `channel` (`channels`), the server every
service runs (`server`), the token every call carries (`service_auth`), and what both ends agree
on (`wire`). Services use it as `rpc.call(stub.Method, request)`."""

from printcloud.core.rpc.channels import call, channel, stream
from printcloud.core.rpc.server import ServicerContext, create_server, start_server

__all__ = ["ServicerContext", "call", "channel", "create_server", "start_server", "stream"]
