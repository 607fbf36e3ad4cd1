"""A synchronous gRPC channel that calls a service as one of its rightful callers would: with that
caller's service token (`printcloud.core.rpc.service_auth`). For tests that drive a service directly."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc

from printcloud.core.rpc.service_auth import TOKEN_METADATA_KEY, CallerCredential


class _Details(
    collections.namedtuple(
        "_Details", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")
    ),
    grpc.ClientCallDetails,
):
    pass


class _WithToken(
    grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor, grpc.StreamUnaryClientInterceptor
):
    def __init__(self, credential: CallerCredential) -> None:
        self.credential = credential

    def _details(self, details: Any) -> _Details:
        metadata = [*(details.metadata or ()), (TOKEN_METADATA_KEY, self.credential.token())]
        return _Details(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready, details.compression
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return continuation(self._details(details), request_iterator)


@contextmanager
def channel_as(target: str, caller: str, secret: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(target) as plain:
        yield grpc.intercept_channel(plain, _WithToken(CallerCredential(caller, secret)))
