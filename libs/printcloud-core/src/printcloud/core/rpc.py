"""gRPC conventions in one place: servers and channels, trace context and request id in
metadata, and `ApiError` carried across the wire so the gateway renders the service's own code."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, Protocol, TypeAlias, TypeVar, cast

import grpc
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from prometheus_client import Counter, Histogram

from printcloud.contracts.errors import ApiError
from printcloud.core.service_auth import TOKEN_METADATA_KEY, CallerCredential, TokenVerifier
from printcloud.core.telemetry.traces import activate_carrier, carrier_headers, tracer

log = logging.getLogger(__name__)

Request = TypeVar("Request")
Response = TypeVar("Response")
Call = TypeVar("Call", bound=grpc.aio.Call)
_Sent = TypeVar("_Sent", contravariant=True)
_Answered = TypeVar("_Answered", covariant=True)

# The context of any call: servicers take their messages from their arguments and give them back
# as their return values (both typed by the generated stubs), never through the context.
ServicerContext: TypeAlias = grpc.aio.ServicerContext[Any, Any]
# A unary handler of grpc.aio, which grpc's stubs describe as the threaded server's plain function.
_Answer: TypeAlias = Callable[[Request, ServicerContext], Awaitable[Response]]

# Files travel in 1 MB slices (`contracts.job_upload`, `ReadJobFile`); lists and the rest are small.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]
# A target's name may resolve to several addresses (`dns:///name:port` of a headless Service: one
# per replica); round robin spreads calls over all of them, where gRPC's default (pick first)
# would send every call to one.
ROUND_ROBIN = ("grpc.lb_policy_name", "round_robin")
# gRPC shares connections between a process's channels to one address by default, and with them a
# reconnect backoff: a new channel to a server restarted on an address that another channel still
# waits on would fail fast with UNAVAILABLE. Each channel keeps its own.
OWN_CONNECTIONS = ("grpc.use_local_subchannel_pool", 1)
# Clients only look the name up again when a connection ends, so servers end theirs every few
# minutes: replicas added by a scale-up then get calls too. The grace lets streams in flight end.
SERVER_OPTIONS = [
    *CHANNEL_OPTIONS,
    ("grpc.max_connection_age_ms", 5 * 60 * 1000),
    ("grpc.max_connection_age_grace_ms", 2 * 60 * 1000),
]

# `code` is the gRPC status name (OK, NOT_FOUND, INTERNAL...); `method` only ever a registered one.
RPC_SERVED = Counter("printcloud_grpc_server_handled_total", "gRPC calls served, by status code", ["method", "code"])
RPC_LATENCY = Histogram("printcloud_grpc_server_handling_seconds", "Time to answer a single-answer call", ["method"])
INTERNAL_ERROR = ApiError("internal_error", "An internal error occurred.")

_STATUS_BY_HTTP = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.ABORTED,
    410: grpc.StatusCode.FAILED_PRECONDITION,
    413: grpc.StatusCode.INVALID_ARGUMENT,
    422: grpc.StatusCode.FAILED_PRECONDITION,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    503: grpc.StatusCode.UNAVAILABLE,
}


def encode_error(error: ApiError) -> str:
    return json.dumps({"code": error.code, "message": error.message, "details": error.details})


def decode_error(exc: grpc.aio.AioRpcError) -> ApiError:
    try:
        body = json.loads(exc.details() or "")
        return ApiError(body["code"], body["message"], body.get("details"))
    except (ValueError, KeyError, TypeError):
        pass
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return ApiError("service_unavailable", "A backing service is unavailable; retry with backoff.")
    log.error("unexpected gRPC failure", extra={"grpc_code": str(exc.code()), "grpc_details": exc.details()})
    return ApiError("internal_error", "An internal error occurred.")


def _grpc_status(error: ApiError) -> grpc.StatusCode:
    return _STATUS_BY_HTTP.get(error.status, grpc.StatusCode.UNKNOWN)


def _text_metadata(metadata: grpc.aio.Metadata | None) -> dict[str, str]:
    """The text entries of a call's metadata (trace context, request id, token); binary ones
    (keys ending in `-bin`) carry none of them."""
    return {key: value for key, value in metadata or () if isinstance(value, str)}


def _served(method: str, code: grpc.StatusCode, started: float) -> None:
    RPC_SERVED.labels(method, code.name).inc()
    # Debug: heartbeats make these lines too frequent for INFO, but they show a trace's hops.
    log.debug(
        "rpc served",
        extra={"method": method, "code": code.name, "ms": round((time.perf_counter() - started) * 1000, 1)},
    )


async def _refuse(context: ServicerContext, span: Span, method: str, failure: Exception, started: float) -> None:
    """Ends the call with `failure` as its status: an `ApiError` as itself, anything else as INTERNAL
    (logged, counted, and never described to the caller)."""
    if isinstance(failure, ApiError):
        error, status = failure, _grpc_status(failure)
    else:
        log.error("unexpected error serving a gRPC call", extra={"method": method}, exc_info=failure)
        error, status = INTERNAL_ERROR, grpc.StatusCode.INTERNAL
        span.set_status(Status(StatusCode.ERROR, type(failure).__name__))
    span.set_attribute("rpc.grpc.status_code", status.value[0])
    _served(method, status, started)
    await context.abort(status, encode_error(error))


def _answering(inner: _Answer[Request, Response], method: str) -> _Answer[Request, Response]:
    """A single-answer handler (unary or client-streaming) with trace context, metrics and
    `ApiError` sent as the call's status."""

    async def answer(request: Request, context: ServicerContext) -> Response:
        metadata = _text_metadata(context.invocation_metadata())
        with activate_carrier(metadata, method, SpanKind.SERVER) as span, RPC_LATENCY.labels(method).time():
            started = time.perf_counter()
            try:
                response = await inner(request, context)
            except grpc.aio.AbortError:
                raise
            except Exception as failure:  # noqa: BLE001 - every failure becomes the call's status
                await _refuse(context, span, method, failure, started)
            _served(method, grpc.StatusCode.OK, started)
            return response

    return answer


def _refusing(
    handler: grpc.RpcMethodHandler[Request, Response], method: str, reason: str
) -> grpc.RpcMethodHandler[Request, Response]:
    """A handler of the same kind as `handler` that refuses the call before reading it."""
    log.warning("rpc refused", extra={"method": method, "reason": reason})
    RPC_SERVED.labels(method, grpc.StatusCode.UNAUTHENTICATED.name).inc()

    async def refuse(request: Request, context: ServicerContext) -> Response:
        # Plain details, not an `ApiError`: the caller is misconfigured, which its users must see
        # as an internal error, never as their own 401.
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, f"service authentication failed: {reason}")

    kind = (
        grpc.unary_unary_rpc_method_handler
        if handler.unary_unary
        else grpc.stream_unary_rpc_method_handler
        if handler.stream_unary
        else grpc.unary_stream_rpc_method_handler
        if handler.unary_stream
        else grpc.stream_stream_rpc_method_handler
    )
    return kind(
        refuse, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
    )


class _ServerInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, verifier: TokenVerifier | None) -> None:
        self.verifier = verifier

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Request, Response] | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Request, Response] | None:
        handler = await continuation(details)
        if handler is None:
            return handler
        method = details.method
        if self.verifier is not None:
            token = dict(details.invocation_metadata or ()).get(TOKEN_METADATA_KEY)
            reason = self.verifier.refusal(method, token if isinstance(token, str) else None)
            if reason is not None:
                return _refusing(handler, method, reason)
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                _answering(cast("_Answer[Request, Response]", handler.unary_unary), method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_unary:
            return grpc.stream_unary_rpc_method_handler(
                _answering(cast("_Answer[Request, Response]", handler.stream_unary), method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            inner_us = cast("Callable[[Request, ServicerContext], AsyncIterator[Response]]", handler.unary_stream)

            async def unary_stream(request: Request, context: ServicerContext) -> AsyncIterator[Response]:
                metadata = _text_metadata(context.invocation_metadata())
                with activate_carrier(metadata, method, SpanKind.SERVER) as span:
                    started = time.perf_counter()
                    try:
                        async for item in inner_us(request, context):
                            yield item
                    except grpc.aio.AbortError:
                        raise
                    except Exception as failure:  # noqa: BLE001 - every failure becomes the call's status
                        await _refuse(context, span, method, failure, started)
                    _served(method, grpc.StatusCode.OK, started)

            return grpc.unary_stream_rpc_method_handler(
                unary_stream,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler


def create_server(verifier: TokenVerifier | None = None) -> grpc.aio.Server:
    """A server whose calls must carry a service token that `verifier` accepts; tests that serve
    fakes pass none."""
    return grpc.aio.server(interceptors=[_ServerInterceptor(verifier)], options=SERVER_OPTIONS)


async def start_server(server: grpc.aio.Server, address: str) -> int:
    """Binds and starts `server`; returns the bound port (useful with port 0)."""
    port = server.add_insecure_port(address)
    await server.start()
    return port


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
        options=[*CHANNEL_OPTIONS, ROUND_ROBIN, OWN_CONNECTIONS],
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
