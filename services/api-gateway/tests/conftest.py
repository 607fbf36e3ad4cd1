"""The gateway app against a real PostgreSQL database and in-process fake Devices and Jobs services.

The fakes run behind the real gRPC server and client helpers of `printcloud.core.rpc`, so
`ApiError` codes, request ids and trace context cross a real gRPC hop as in production.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
import pytest

from printcloud.api_gateway.domain.api_keys import mint_api_key
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.persistence.schema import migrate_gateway
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.api_gateway.use_cases.accounts import Accounts
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.devstack.ports import free_port
from printcloud.devstack.smtp_sink import SmtpSink
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc, webhooks_pb2_grpc
from tests.support.databases import database_fixtures
from tests.support.fakes.devices import FakeDevices
from tests.support.fakes.jobs import FakeJobs
from tests.support.grpc_server import serving
from tests.support.served_app import served
from tests.support.tls_servers import certificates, tls_redis  # noqa: F401 - fixtures for the tests here

AGENT_GATEWAY_URL = "http://agents.example.test:8081"


database_url, db = database_fixtures("printcloud_gateway_test", migrate_gateway)


@pytest.fixture(scope="session")
async def accounts(db: Database) -> Accounts:
    return Accounts(db)


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
async def deps(accounts: Accounts, services: Services) -> GatewayDeps:
    # Async so that the channel is made on the session's running loop, whatever an earlier test
    # left as the thread's current loop.
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


@pytest.fixture(scope="session")
def sink() -> Iterator[SmtpSink]:
    """A real SMTP server on a loopback port, for the dashboard's sign-in e-mails."""
    server = SmtpSink(free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def server_url(deps: GatewayDeps) -> AsyncIterator[str]:
    """The same app behind a real server on a loopback port: for what only a real server shows
    (the protocol's limits, raw requests, a browser)."""
    async with served(create_app(deps)) as url:
        yield url


class MakeKey(Protocol):
    def __call__(self, scopes: tuple[str, ...] = ..., mode: str = ...) -> Awaitable[str]: ...


@dataclass(frozen=True)
class Tenant:
    organization_id: str
    name: str
    make_key: MakeKey


@pytest.fixture
async def tenant(accounts: Accounts) -> Tenant:
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
    error: dict[str, Any] = body["error"]
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]
    assert error["request_id"] == response.headers["x-request-id"]
    return error


# The envelope's `error` object, once its status, code and request id are checked.
AssertError = Callable[[httpx.Response, int, str], dict[str, Any]]


@pytest.fixture(scope="session")
def assert_error() -> AssertError:
    # A fixture because test modules cannot import conftest under --import-mode=importlib.
    return _assert_error
