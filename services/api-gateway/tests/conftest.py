"""The gateway app against a real PostgreSQL database and in-process fake Devices and Jobs services.

The fakes run behind the real gRPC server and client helpers of `printcloud.core.rpc`, so
`ApiError` codes, request ids and trace context cross a real gRPC hop as in production.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
import pytest

from printcloud.api_gateway.domain.api_keys import mint_api_key
from printcloud.api_gateway.persistence.repository import AccountsRepository
from printcloud.api_gateway.persistence.schema import migrate_gateway
from printcloud.api_gateway.rate_limiter import RateLimiter
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.core import rpc
from printcloud.core.db import Database
from printcloud.core.errors import ApiError, not_found
from printcloud.core.ids import new_id
from printcloud.core.job_upload import read_upload
from printcloud.devstack.infrastructure import temporary_database
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc, jobs_pb2, jobs_pb2_grpc, webhooks_pb2_grpc
from tests.support.grpc_server import serving

AGENT_GATEWAY_URL = "http://agents.example.test:8081"
NOW = "2030-01-01T00:00:00.000Z"
# A printer id the fake Jobs service treats as switched off, to check service errors reach the client.
DISABLED_PRINTER = "018f0000-0000-7000-8000-00000000d15a"


def _key(scope: common_pb2.Scope) -> tuple[str, str]:
    return scope.organization_id, scope.mode


def _page(items: list[Any], page: common_pb2.PageRequest) -> tuple[list[Any], common_pb2.PageInfo]:
    """Enough of the paging rules for a fake: the first `limit` items, cursor echoed when empty."""
    chosen = items[: page.limit]
    info = common_pb2.PageInfo(has_more=len(items) > page.limit)
    if chosen:
        info.next_cursor = chosen[-1].id
    elif page.HasField("after"):
        info.next_cursor = page.after
    return chosen, info


@dataclass
class FakeDevices(devices_pb2_grpc.DevicesServicer):
    computers: list[devices_pb2.Computer] = field(default_factory=list)
    printers: list[devices_pb2.Printer] = field(default_factory=list)
    requests: list[Any] = field(default_factory=list)

    def add_computer(self, organization_id: str, mode: str) -> devices_pb2.Computer:
        computer = devices_pb2.Computer(
            id=new_id(), organization_id=organization_id, name="Office PC", hostname="office", mode=mode,
            state="online", created_at=NOW, os="linux",
        )  # fmt: skip
        self.computers.append(computer)
        return computer

    def add_printer(self, computer: devices_pb2.Computer) -> devices_pb2.Printer:
        printer = devices_pb2.Printer(
            id=new_id(), organization_id=computer.organization_id, computer_id=computer.id, name="laser",
            display_name="Laser", enabled=True, state="online", capabilities_json='{"duplex": true}',
            default_options_json='{"copies": 1}', created_at=NOW, updated_at=NOW, mode=computer.mode,
        )  # fmt: skip
        self.printers.append(printer)
        return printer

    def _in_scope(self, items: list[Any], scope: common_pb2.Scope) -> list[Any]:
        return [i for i in items if (i.organization_id, i.mode) == _key(scope)]

    async def ListComputers(self, request: Any, context: Any) -> devices_pb2.ComputerPage:
        self.requests.append(request)
        items, info = _page(self._in_scope(self.computers, request.scope), request.page)
        return devices_pb2.ComputerPage(items=items, page=info)

    async def GetComputer(self, request: Any, context: Any) -> devices_pb2.Computer:
        self.requests.append(request)
        for computer in self._in_scope(self.computers, request.scope):
            if computer.id == request.id:
                return computer
        raise not_found("computer")

    async def ListPrinters(self, request: Any, context: Any) -> devices_pb2.PrinterPage:
        self.requests.append(request)
        printers = self._in_scope(self.printers, request.scope)
        if request.HasField("computer_id"):
            if not any(c.id == request.computer_id for c in self._in_scope(self.computers, request.scope)):
                raise not_found("computer")
            printers = [p for p in printers if p.computer_id == request.computer_id]
        items, info = _page(printers, request.page)
        return devices_pb2.PrinterPage(items=items, page=info)

    async def GetPrinter(self, request: Any, context: Any) -> devices_pb2.Printer:
        self.requests.append(request)
        for printer in self._in_scope(self.printers, request.scope):
            if printer.id == request.id:
                return printer
        raise not_found("printer")

    async def EnrollComputer(self, request: Any, context: Any) -> devices_pb2.EnrollComputerResponse:
        self.requests.append(request)
        computer = self.add_computer(request.scope.organization_id, request.scope.mode)
        computer.name, computer.hostname = request.name, request.hostname
        return devices_pb2.EnrollComputerResponse(computer=computer, agent_credential="agc_secret")


@dataclass
class FakeJobs(jobs_pb2_grpc.JobsServicer):
    jobs: list[jobs_pb2.PrintJob] = field(default_factory=list)
    requests: list[Any] = field(default_factory=list)
    metadata: list[dict[str, str]] = field(default_factory=list)
    documents: list[bytearray | None] = field(default_factory=list)

    def _record(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        self.requests.append(request)
        self.metadata.append({k: v for k, v in context.invocation_metadata() or () if isinstance(v, str)})

    def add_job(self, organization_id: str, mode: str, printer_id: str) -> jobs_pb2.PrintJob:
        job = jobs_pb2.PrintJob(
            id=new_id(), organization_id=organization_id, printer_id=printer_id, computer_id=new_id(), title="t",
            content_type="pdf_base64", source="api", qty=1, options_json="{}", expire_after=86400, expires_at=NOW,
            mode=mode, state="queued", created_at=NOW,
        )  # fmt: skip
        self.jobs.append(job)
        return job

    def _find(self, request: Any) -> jobs_pb2.PrintJob:
        for job in self.jobs:
            if job.id == request.id and (job.organization_id, job.mode) == _key(request.scope):
                return job
        raise not_found("print job")

    async def CreateJob(self, parts: Any, context: Any) -> jobs_pb2.CreateJobResponse:
        request, document = await read_upload(parts)
        self._record(request, context)
        self.documents.append(document)
        if request.title == "[crash]":
            raise RuntimeError("fake jobs service crashed")
        if request.printer_id == DISABLED_PRINTER:
            raise ApiError("printer_disabled", "The printer is not live.")
        if request.title == "[over quota]":
            raise ApiError("quota_exceeded", "All live prints of this month are used.")
        job = self.add_job(request.scope.organization_id, request.scope.mode, request.printer_id)
        job.title, job.qty, job.source = request.title, request.qty, request.source
        job.content_type = request.content_type or "pdf_base64"
        job.file_size = len(document or b"")
        return jobs_pb2.CreateJobResponse(job=job)

    async def GetUsage(self, request: Any, context: Any) -> jobs_pb2.Usage:
        self._record(request, context)
        return jobs_pb2.Usage(
            period_start="2030-01-01T00:00:00.000Z", period_end="2030-02-01T00:00:00.000Z", live_prints=7,
            day_start="2030-01-15T00:00:00.000Z", day_end="2030-01-16T00:00:00.000Z", test_jobs_today=3,
            test_jobs_per_day=500,
        )  # fmt: skip

    async def GetJob(self, request: Any, context: Any) -> jobs_pb2.PrintJob:
        self._record(request, context)
        return self._find(request)

    async def ListJobs(self, request: Any, context: Any) -> jobs_pb2.JobPage:
        self._record(request, context)
        jobs = [j for j in self.jobs if (j.organization_id, j.mode) == _key(request.scope)]
        if request.filters.HasField("printer_id"):
            jobs = [j for j in jobs if j.printer_id == request.filters.printer_id]
        items, info = _page(jobs, request.page)
        return jobs_pb2.JobPage(items=items, page=info)

    async def ListJobStateChanges(self, request: Any, context: Any) -> jobs_pb2.JobStateChangeList:
        self._record(request, context)
        self._find(request)
        change = jobs_pb2.JobStateChange(id=new_id(), state="queued", actor="api", created_at=NOW)
        return jobs_pb2.JobStateChangeList(items=[change])

    async def CancelJob(self, request: Any, context: Any) -> jobs_pb2.PrintJob:
        self._record(request, context)
        job = self._find(request)
        if job.state != "queued":
            raise ApiError("not_cancellable", "The job already reached the agent.")
        job.state = "cancelled"
        return job


@pytest.fixture(scope="session")
async def database_url() -> AsyncIterator[str]:
    async with temporary_database("printcloud_gateway_test") as url:
        await migrate_gateway(url)
        yield url


@pytest.fixture(scope="session")
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database.connect(database_url)
    yield database
    await database.close()


@pytest.fixture(scope="session")
async def accounts(db: Database) -> AccountsRepository:
    return AccountsRepository(db)


@dataclass
class Services:
    devices: FakeDevices
    jobs: FakeJobs
    devices_stub: devices_pb2_grpc.DevicesStub
    jobs_stub: jobs_pb2_grpc.JobsStub


@pytest.fixture(scope="session")
async def services() -> AsyncIterator[Services]:
    devices, jobs = FakeDevices(), FakeJobs()
    async with (
        serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as devices_channel,
        serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as jobs_channel,
    ):
        yield Services(
            devices, jobs, devices_pb2_grpc.DevicesStub(devices_channel), jobs_pb2_grpc.JobsStub(jobs_channel)
        )


@pytest.fixture(scope="session")
def deps(accounts: AccountsRepository, services: Services) -> GatewayDeps:
    return GatewayDeps(
        accounts=accounts,
        jobs=services.jobs_stub,
        devices=services.devices_stub,
        # Nothing listens here: tests of the webhooks routes build their own deps with a fake.
        webhooks=webhooks_pb2_grpc.WebhooksStub(rpc.channel("127.0.0.1:9")),
        agent_gateway_public_url=AGENT_GATEWAY_URL,
        # The suite shares one client address and runs fast; test_rate_limit_http tests the limit.
        rate_limiter=RateLimiter(10_000),
    )


@pytest.fixture(scope="session")
async def client(deps: GatewayDeps) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(deps))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
        yield http


@dataclass(frozen=True)
class Tenant:
    organization_id: str
    name: str
    make_key: Callable[..., Awaitable[str]]


@pytest.fixture
async def tenant(accounts: AccountsRepository) -> Tenant:
    """A fresh organization per test, so fakes' data and keys never leak between tests."""
    name = f"Org {uuid.uuid4().hex[:6]}"
    organization = await accounts.create_organization(name, f"owner-{uuid.uuid4().hex[:6]}@example.com")

    async def make_key(scopes: tuple[str, ...] = ("read", "print", "admin"), mode: str = "test") -> str:
        key = mint_api_key(mode)
        await accounts.create_api_key(organization.id, mode, scopes, key)
        return key.secret

    return Tenant(organization.id, name, make_key)


def _assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The spec's envelope with the right status and code, and request ids that agree."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    assert error["request_id"] == response.headers["x-request-id"]
    return error


@pytest.fixture(scope="session")
def assert_error() -> Callable[[httpx.Response, int, str], dict[str, Any]]:
    # A fixture because test modules cannot import conftest under --import-mode=importlib.
    return _assert_error
