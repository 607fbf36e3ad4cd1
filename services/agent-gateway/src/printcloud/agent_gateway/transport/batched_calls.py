"""Calls to jobs and devices that go in batches: while one call is on its way, the requests that
arrive meanwhile, from any connection or command, wait and go together in the next call, which the
service decides in one transaction. A request that finds no call on its way goes at once, so batching adds
no wait; under load, one call carries many requests instead of each paying a call and a
transaction of its own.

A call whose caller is cancelled is settled before the cancellation goes on: withdrawn if it was
still waiting (it is never sent), or answered if it was on its way. The caller knows, either way,
that the service will not act on it later, after something that followed it: an agent's goodbye
cancelled by its reconnect is never recorded after its hello.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import grpc
from prometheus_client import Histogram

from printcloud.contracts.errors import ApiError
from printcloud.core.rpc.wire import decode_error

log = logging.getLogger(__name__)

# As many as one call carries; more wait for the next.
MOST_PER_CALL = 500
# A replica of an earlier release, met during a rolling upgrade, is asked again after this.
ASK_AGAIN_SECONDS = 60.0

BATCH_SIZE = Histogram(
    "printcloud_agent_gateway_batch_size",
    "Requests carried by one batched call to jobs or devices",
    ["call"],
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, MOST_PER_CALL),
)

Request = TypeVar("Request")
Answer = TypeVar("Answer")

# One answer per request, in order: what the service answered for it, or its refusal.
Batch = Callable[[list[Request]], Awaitable[list[Answer | ApiError]]]


@dataclass
class _Waiting(Generic[Request, Answer]):
    request: Request
    answer: asyncio.Future[Answer] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    sent: bool = False


class BatchedCalls(Generic[Request, Answer]):
    """`batch` is the call taking many requests; `single` the call taking one, used while the
    service answers `batch` with UNIMPLEMENTED (a replica of an earlier release) and raising
    `ApiError`."""

    def __init__(
        self,
        what: str,
        batch: Batch[Request, Answer],
        single: Callable[[Request], Awaitable[Answer]],
        *,
        most_per_call: int = MOST_PER_CALL,
    ) -> None:
        self.what = what
        self._sizes = BATCH_SIZE.labels(what)
        self.batch = batch
        self.single = single
        self.most_per_call = most_per_call
        self._waiting: list[_Waiting[Request, Answer]] = []
        self._sender: asyncio.Task[None] | None = None
        self._singles_until = 0.0

    async def call(self, request: Request) -> Answer:
        """What the service answered for the request; raises the `ApiError` it answered for the
        request alone, or the batch's failure."""
        waiting: _Waiting[Request, Answer] = _Waiting(request)
        self._waiting.append(waiting)
        if self._sender is None or self._sender.done():
            # In a context of its own: the batch's call belongs to no one request's trace (each
            # request carries its own).
            self._sender = asyncio.create_task(self._send_waiting(), context=contextvars.Context())
        try:
            return await asyncio.shield(waiting.answer)
        except asyncio.CancelledError:
            if waiting.sent:
                await asyncio.wait([waiting.answer])
                if not waiting.answer.cancelled():
                    waiting.answer.exception()  # the caller is gone; its failure is not news
            else:
                waiting.answer.cancel()  # withdrawn: the sender skips it
            raise

    async def _send_waiting(self) -> None:
        while self._waiting:
            taken, self._waiting = self._waiting[: self.most_per_call], self._waiting[self.most_per_call :]
            batch = [waiting for waiting in taken if not waiting.answer.done()]
            if not batch:
                continue
            for waiting in batch:
                waiting.sent = True
            self._sizes.observe(len(batch))
            try:
                answers = await self._send([waiting.request for waiting in batch])
            except BaseException as error:
                for waiting in batch:
                    if not waiting.answer.done():
                        waiting.answer.set_exception(error)
                if not isinstance(error, Exception):
                    raise
                continue
            for waiting, answer in zip(batch, answers, strict=True):
                if isinstance(answer, ApiError):
                    waiting.answer.set_exception(answer)
                else:
                    waiting.answer.set_result(answer)

    async def _send(self, requests: list[Request]) -> list[Answer | ApiError]:
        if time.monotonic() >= self._singles_until:
            try:
                return await self.batch(requests)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise decode_error(error) from None
                log.info("the service takes no batches yet; sending them one by one", extra={"calls": self.what})
                self._singles_until = time.monotonic() + ASK_AGAIN_SECONDS
        return [await self._send_one(request) for request in requests]

    async def _send_one(self, request: Request) -> Answer | ApiError:
        try:
            return await self.single(request)
        except ApiError as refused:
            if refused.status >= 500:
                raise
            return refused


def refusal(code: str, message: str) -> ApiError | None:
    """A batched call's outcome for one request: empty when the service took it."""
    return ApiError(code, message) if code else None
