"""Calls to another service: a channel that balances over every replica, carries the trace
context, the request id and the caller's service token, and makes a client span for each call;
`call` and `stream` raise the service's own `ApiError`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from typing import Protocol, TypeVar

import grpc
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from printcloud.core.rpc.service_auth import TOKEN_METADATA_KEY, CallerCredential
from printcloud.core.rpc.wire import MESSAGE_SIZE_OPTIONS, decode_error
from printcloud.core.telemetry.traces import carrier_headers, tracer

Request = TypeVar("Request")
Response = TypeVar("Response")
Call = TypeVar("Call", bound=grpc.aio.Call)
_Sent = TypeVar("_Sent", contravariant=True)
_Answered = TypeVar("_Answered", covariant=True)

# A target's name may resolve to several addresses (`dns:///name:port` of a headless Service: one
# per replica); round robin spreads calls over all of them, where gRPC's default (pick first)
# would send every call to one.
ROUND_ROBIN = ("grpc.lb_policy_name", "round_robin")
# gRPC shares connections between a process's channels to one address by default, and with them a
# reconnect backoff: a new channel to a server restarted on an address that another channel still
# waits on would fail fast with UNAVAILABLE. Each channel keeps its own.
OWN_CONNECTIONS = ("grpc.use_local_subchannel_pool", 1)
# gRPC waits between attempts to reach a server that is down from 1 s, growing 1.6 times a try up
# to 2 minutes, and fails calls at once while it waits: the callers of a peer back after a few
# minutes down went on failing for tens of seconds more. Trying again within 2 s at most (the first
# time after a quarter second, for a peer still starting) costs a refused connection every 2 s
# while it is down.
RECONNECT_BACKOFF = (("grpc.initial_reconnect_backoff_ms", 250), ("grpc.max_reconnect_backoff_ms", 2_000))
# A channel resolves its target's name again when an address fails, by default no sooner than 30 s
# after its last resolution: a caller that resolved a service just before all of its pods were
# replaced (an upgrade restarts callers and callees together) knew only addresses that were gone
# and failed every call until then. Once a second costs a DNS query a second while addresses fail.
RESOLVE_AGAIN_SOON = ("grpc.dns_min_time_between_resolutions_ms", 1_000)
# A replica whose machine vanished sends no reset: its connection stays open and every call given
# to it waits out its deadline until the kernel gives the connection up, many minutes later. A
# ping every 10 s, busy or idle, finds it: a ping unanswered for 5 s ends the connection. The
# ping timeout covers gRPC's own flow-control pings too, which a new ping would otherwise queue
# behind for ever. Servers accept pings that often (`server.SERVER_OPTIONS`).
LIVENESS_PINGS = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.ping_timeout_ms", 5_000),
)
CHANNEL_OPTIONS = [
    *MESSAGE_SIZE_OPTIONS,
    ROUND_ROBIN,
    OWN_CONNECTIONS,
    *RECONNECT_BACKOFF,
    RESOLVE_AGAIN_SOON,
    *LIVENESS_PINGS,
]

# Spans of calls still running; ended (and released) by their call's done callback.
_open_client_spans: set[asyncio.Task[None]] = set()


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _client_span(details: grpc.aio.ClientCallDetails) -> Span:
    # Typed as text, the method name reaches client interceptors as bytes.
    method = _text(details.method)
    service, _, name = method.lstrip("/").partition("/")
    return tracer().start_span(
        method.lstrip("/"),
        kind=SpanKind.CLIENT,
        attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": name},
    )


async def _end_client_span(call: grpc.aio.Call, span: Span) -> None:
    code = await call.code()
    span.set_attribute("rpc.grpc.status_code", code.value[0])
    if code is not grpc.StatusCode.OK:
        span.set_status(Status(StatusCode.ERROR, code.name))
    span.end()


class _Context:
    """Makes a client span for every call, and adds its trace context, the request id and the
    caller's service token to the call's metadata."""

    def __init__(self, credential: CallerCredential | None) -> None:
        self.credential = credential

    def details(self, details: grpc.aio.ClientCallDetails, span: Span) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        with trace.use_span(span, end_on_exit=False):
            for key, value in carrier_headers().items():
                metadata.add(key, value)
        if self.credential is not None:
            metadata.add(TOKEN_METADATA_KEY, self.credential.token())
        return grpc.aio.ClientCallDetails(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
        )

    async def traced(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Request], Awaitable[Call]],
        details: grpc.aio.ClientCallDetails,
        request: Request,
    ) -> Call:
        span = _client_span(details)
        try:
            call = await continuation(self.details(details, span), request)
        except BaseException as exc:
            span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            span.end()
            raise

        def ended(done: grpc.aio.Call) -> None:
            task = asyncio.get_running_loop().create_task(_end_client_span(done, span))
            _open_client_spans.add(task)
            task.add_done_callback(_open_client_spans.discard)

        call.add_done_callback(ended)
        return call


# One class per kind of call: a channel files each interceptor under the first kind it implements.
class _UnaryUnaryContext(_Context, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(
        self,
        continuation: Callable[
            [grpc.aio.ClientCallDetails, Request], Awaitable[grpc.aio.UnaryUnaryCall[Request, Response]]
        ],
        details: grpc.aio.ClientCallDetails,
        request: Request,
    ) -> grpc.aio.UnaryUnaryCall[Request, Response]:
        return await self.traced(continuation, details, request)


class _UnaryStreamContext(_Context, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(
        self,
        continuation: Callable[
            [grpc.aio.ClientCallDetails, Request], Awaitable[grpc.aio.UnaryStreamCall[Request, Response]]
        ],
        details: grpc.aio.ClientCallDetails,
        request: Request,
    ) -> grpc.aio.UnaryStreamCall[Request, Response]:
        return await self.traced(continuation, details, request)


class _StreamUnaryContext(_Context, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(
        self,
        continuation: Callable[
            [grpc.aio.ClientCallDetails, AsyncIterable[Request] | Iterable[Request]],
            Awaitable[grpc.aio.StreamUnaryCall[Request, Response]],
        ],
        details: grpc.aio.ClientCallDetails,
        requests: AsyncIterable[Request] | Iterable[Request],
    ) -> grpc.aio.StreamUnaryCall[Request, Response]:
        return await self.traced(continuation, details, requests)


def channel(target: str, credential: CallerCredential | None = None) -> grpc.aio.Channel:
    """A channel to `target` (`host:port` or `dns:///host:port`) balancing calls over every address
    its name resolves to, whose calls carry `credential`'s service token (none: for tests' fakes)."""
    return grpc.aio.insecure_channel(
        target,
        options=CHANNEL_OPTIONS,
        interceptors=[_UnaryUnaryContext(credential), _UnaryStreamContext(credential), _StreamUnaryContext(credential)],
    )


DEFAULT_TIMEOUT_SECONDS = 15.0


class _SingleAnswer(Protocol[_Sent, _Answered]):
    """A stub method answered once: unary, or client-streaming with an iterator of requests as
    what it is sent."""

    def __call__(self, request: _Sent, /, *, timeout: float | None = None) -> Awaitable[_Answered]: ...


async def call(
    method: _SingleAnswer[Request, Response], request: Request, *, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> Response:
    """Calls a unary (or client-streaming, with an iterator as `request`) stub method, turning a
    remote `ApiError` back into one."""
    try:
        return await method(request, timeout=timeout)
    except grpc.aio.AioRpcError as exc:
        raise decode_error(exc) from None


async def stream(
    method: grpc.aio.UnaryStreamMultiCallable[Request, Response], request: Request, *, timeout: float = 120.0
) -> AsyncIterator[Response]:
    """Iterates a server-streaming stub method with the same error mapping as `call`."""
    try:
        async for item in method(request, timeout=timeout):
            yield item
    except grpc.aio.AioRpcError as exc:
        raise decode_error(exc) from None
