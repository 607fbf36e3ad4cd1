"""The content fetcher against the real database and a real server on 127.0.0.1: hostile URLs are
refused by the fetch itself (even when they were never checked at creation), good ones stored."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from printcloud.core import rpc
from printcloud.core.http.egress import EgressGuard
from printcloud.core.timeutil import utcnow
from printcloud.jobs.domain.events import published_job
from printcloud.jobs.domain.job import Job
from printcloud.jobs.persistence.tables import pending_fetches, print_jobs
from printcloud.jobs.workers.content_fetcher import ContentFetcher
from printcloud.v1 import jobs_pb2
from services.jobs.tests.conftest import PDF, Stack
from tests.support.content_server import ContentServer, Route, content_server

HOSTILE_AT_FETCH = [
    "http://127.0.0.2:{port}/doc.pdf",
    "http://127.2:{port}/doc.pdf",
    "http://2130706434:{port}/doc.pdf",
    "http://0x7f000002:{port}/doc.pdf",
    "http://017700000002:{port}/doc.pdf",
    "http://[::1]:{port}/doc.pdf",
    "http://[::ffff:127.0.0.2]:{port}/doc.pdf",
    "http://0.0.0.0:{port}/doc.pdf",
    "http://files.internal.test:{port}/doc.pdf",  # the resolver below answers 127.0.0.2
    "http://user:pw@127.0.0.1:{port}/doc.pdf",
    "ftp://127.0.0.1:{port}/doc.pdf",
]


@pytest.fixture(scope="module")
def server() -> Iterator[ContentServer]:
    with content_server() as running:
        running.serve("/doc.pdf", Route(body=PDF))
        yield running


def _guard() -> EgressGuard:
    guard = EgressGuard(["127.0.0.1/32"])

    async def resolver(host: str, port: int) -> list[str]:
        assert host == "files.internal.test"  # nothing else may reach a resolver in these tests
        return ["127.0.0.2"]

    guard.resolver = resolver
    return guard


async def _pending_job(stack: Stack, url: str) -> jobs_pb2.PrintJob:
    """A queued URL job whose fetch row is written directly, as if creation had let `url` through."""
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope), data=None, content_type="pdf_uri",
                                 url="http://127.0.0.1/placeholder.pdf")  # fmt: skip
    async with stack.db.transaction() as session:
        await session.execute(
            pending_fetches.update().where(pending_fetches.c.job_id == uuid.UUID(job.id)).values(url=url)
        )
    return job


async def _fetch_all(stack: Stack) -> None:
    fetcher = ContentFetcher(stack.service, _guard(), timeout_seconds=5)
    while (claimed := await fetcher._claim()) is not None:
        await fetcher._fetch(claimed)


async def _job(stack: Stack, job: jobs_pb2.PrintJob) -> jobs_pb2.PrintJob:
    async with stack.db.read() as session:
        row = (await session.execute(select(print_jobs).where(print_jobs.c.id == uuid.UUID(job.id)))).one()
    return published_job(Job(**row._mapping))


@pytest.mark.parametrize("template", HOSTILE_AT_FETCH)
async def test_the_fetch_refuses_a_hostile_url(stack: Stack, server: ContentServer, template: str) -> None:
    before = len(server.hits)
    job = await _pending_job(stack, template.format(port=server.port))
    await _fetch_all(stack)
    fetched = await _job(stack, job)
    assert fetched.state == "error" and "refused" in fetched.state_message
    assert "pw@" not in fetched.state_message
    assert len(server.hits) == before


async def test_a_fetched_file_is_stored_and_the_job_delivered(stack: Stack, server: ContentServer) -> None:
    job = await _pending_job(stack, server.url("/doc.pdf"))
    await _fetch_all(stack)
    fetched = await _job(stack, job)
    assert fetched.state == "queued"
    assert (fetched.file_sha256, fetched.file_size) == (hashlib.sha256(PDF).hexdigest(), len(PDF))
    commands = [row.payload["type"] for row in await stack.outbox_rows(job.id)]
    assert commands.count("job.deliver") == 1
    async with stack.db.read() as session:
        held = select(pending_fetches).where(pending_fetches.c.job_id == uuid.UUID(job.id))
        assert (await session.execute(held)).all() == []


async def test_an_unfetched_url_is_dropped_after_an_hour_and_the_job_ends_in_error(stack: Stack) -> None:
    job = await _pending_job(stack, "http://127.0.0.1:1/never.pdf")
    async with stack.db.transaction() as session:
        await session.execute(
            pending_fetches.update()
            .where(pending_fetches.c.job_id == uuid.UUID(job.id))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    await stack.service.expire_pending_fetches()
    fetched = await _job(stack, job)
    assert fetched.state == "error" and "within an hour" in fetched.state_message


async def test_a_url_job_is_not_delivered_before_its_file_exists(stack: Stack) -> None:
    job = await _pending_job(stack, "http://127.0.0.1:1/later.pdf")
    assert [row.payload["type"] for row in await stack.outbox_rows(job.id)] == ["printjob.queued"]
    pending = await rpc.call(stack.jobs.ListPendingJobs, jobs_pb2.ListPendingJobsRequest(computer_id=job.computer_id))
    assert list(pending.items) == []


async def test_the_fetcher_runs_as_many_fetches_at_once_as_it_may(stack: Stack, server: ContentServer) -> None:
    concurrency = 3
    server.serve("/together.pdf", Route(body=PDF, together=threading.Barrier(concurrency)))
    jobs = [await _pending_job(stack, server.url("/together.pdf")) for _ in range(concurrency)]
    fetcher = ContentFetcher(stack.service, _guard(), concurrency=concurrency, poll_seconds=0.1, timeout_seconds=60)
    running = asyncio.create_task(fetcher.run())
    try:
        async with asyncio.timeout(60):
            while not all(fetched.state == "error" or fetched.file_size for fetched in await _jobs(stack, jobs)):
                await asyncio.sleep(0.1)
    finally:
        running.cancel()
    # Each answer waited until all of them were asked: a 503 otherwise, and the job in error.
    assert [fetched.state for fetched in await _jobs(stack, jobs)] == ["queued"] * concurrency


async def _jobs(stack: Stack, jobs: list[jobs_pb2.PrintJob]) -> list[jobs_pb2.PrintJob]:
    return [await _job(stack, job) for job in jobs]


class _CountedClaims(ContentFetcher):
    empty_claims = 0

    async def _claim(self) -> Any:
        claimed = await super()._claim()
        self.empty_claims += claimed is None
        return claimed


async def test_an_idle_fetcher_asks_once_a_poll_whatever_its_concurrency(stack: Stack) -> None:
    fetcher = _CountedClaims(stack.service, _guard(), concurrency=4, poll_seconds=0.05)
    running = asyncio.create_task(fetcher.run())
    began = asyncio.get_running_loop().time()
    try:
        async with asyncio.timeout(30):
            while fetcher.empty_claims < 10:
                await asyncio.sleep(0.01)
    finally:
        running.cancel()
    polls = (asyncio.get_running_loop().time() - began) / 0.05
    # Four fetchers polling apart would find nothing four times a poll. (Rows other tests left may be
    # claimed and fetched meanwhile: only the claims that found none wait for the poll.)
    assert fetcher.empty_claims <= polls + 1
