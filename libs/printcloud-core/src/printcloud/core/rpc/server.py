"""The gRPC server every service runs: the caller's service token checked before any handler,
trace context and request id taken from the metadata, calls counted and timed, and a handler's
`ApiError` sent as the call's status (anything else as INTERNAL, logged, never described)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias, TypeVar, cast

import grpc
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from prometheus_client import Counter, Histogram

from printcloud.contracts.errors import ApiError
from printcloud.core.db.outages import is_database_outage
from printcloud.core.rpc.service_auth import TOKEN_METADATA_KEY, TokenVerifier
from printcloud.core.rpc.wire import MESSAGE_SIZE_OPTIONS, backing_service_unavailable, encode_error, grpc_status
from printcloud.core.telemetry.traces import activate_carrier

log = logging.getLogger(__name__)

Request = TypeVar("Request")
Response = TypeVar("Response")

# The context of any call: servicers take their messages from their arguments and give them back
# as their return values (both typed by the generated stubs), never through the context.
ServicerContext: TypeAlias = grpc.aio.ServicerContext[Any, Any]
# A unary handler of grpc.aio, which grpc's stubs describe as the threaded server's plain function.
_Answer: TypeAlias = Callable[[Request, ServicerContext], Awaitable[Response]]

# Clients only look the name up again when a connection ends, so servers end theirs every few
# minutes: replicas added by a scale-up then get calls too. The grace lets streams in flight end.
# Callers ping every connection every 10 s, idle ones too (`channels.LIVENESS_PINGS`); by
# default a server ends a connection pinged more often than every 5 minutes without calls.
SERVER_OPTIONS = [
    *MESSAGE_SIZE_OPTIONS,
    ("grpc.max_connection_age_ms", 5 * 60 * 1000),
    ("grpc.max_connection_age_grace_ms", 2 * 60 * 1000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
]

# `code` is the gRPC status name (OK, NOT_FOUND, INTERNAL...); `method` only ever a registered one.
RPC_SERVED = Counter("printcloud_grpc_server_handled_total", "gRPC calls served, by status code", ["method", "code"])
RPC_LATENCY = Histogram("printcloud_grpc_server_handling_seconds", "Time to answer a single-answer call", ["method"])
INTERNAL_ERROR = ApiError("internal_error", "An internal error occurred.")


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
    """Ends the call with `failure` as its status: an `ApiError` as itself, the database down or
    busy as UNAVAILABLE (503 `service_unavailable` to API clients, who retry), anything else as
    INTERNAL (logged, counted, and never described to the caller)."""
    if isinstance(failure, ApiError):
        error, status = failure, grpc_status(failure)
    elif is_database_outage(failure):
        log.warning(
            "database unavailable while serving a gRPC call",
            extra={"method": method, "error": type(failure).__name__},
        )
        error, status = backing_service_unavailable(), grpc.StatusCode.UNAVAILABLE
        span.set_status(Status(StatusCode.ERROR, type(failure).__name__))
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
