"""The pairing-code routes and enrolment by code, against a fake Devices service behind a real
gRPC hop: scopes, bodies, what is sent on, rendering, and the refusals' envelopes and headers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import pytest

from printcloud.api_gateway.persistence import audit
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.contracts.errors import ApiError
from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.rpc import ServicerContext
from printcloud.v1 import devices_pb2, devices_pb2_grpc
from tests.support.grpc_server import serving

if TYPE_CHECKING:
    from conftest import AssertError, Tenant

Answer = TypeVar("Answer")
CODE_ID = "018f0000-0000-7000-8000-00000000c0de"
CODE = devices_pb2.PairingCode(
    id=CODE_ID, hint="7K4M", description="Shops", mode="test", max_uses=3, uses=1, state="active",
    expires_at="2026-05-02T12:00:00.000Z", created_at="2026-05-01T12:00:00.000Z",
)  # fmt: skip
CODE_FIELDS = {
    "id", "hint", "description", "mode", "maxUses", "uses", "usesLeft", "state", "expiresAt", "revokedAt", "createdAt"
}  # fmt: skip


def _revoked(code: devices_pb2.PairingCode) -> devices_pb2.PairingCode:
    revoked = devices_pb2.PairingCode()
    revoked.CopyFrom(code)
    revoked.state, revoked.revoked_at = "revoked", "2026-05-01T14:00:00.000Z"
    return revoked


@dataclass
class FakePairing(devices_pb2_grpc.DevicesServicer):
    """Answers the pairing RPCs with canned messages and records what reached it."""

    requests: list[Any] = field(default_factory=list)
    refusal: ApiError | None = None
    # The code as the service holds it before a call (revoked or not).
    code: devices_pb2.PairingCode = field(default_factory=lambda: CODE)

    def _answer(self, request: Any, answer: Answer) -> Answer:
        self.requests.append(request)
        if self.refusal is not None:
            raise self.refusal
        return answer

    async def CreatePairingCode(self, request: Any, context: ServicerContext) -> devices_pb2.CreatedPairingCode:
        return self._answer(request, devices_pb2.CreatedPairingCode(pairing_code=CODE, code="7K4M-9QXP-3T8D"))

    async def ListPairingCodes(self, request: Any, context: ServicerContext) -> devices_pb2.PairingCodePage:
        return self._answer(request, devices_pb2.PairingCodePage(items=[CODE]))

    async def GetPairingCode(self, request: Any, context: ServicerContext) -> devices_pb2.PairingCode:
        return self._answer(request, self.code)

    async def RevokePairingCode(self, request: Any, context: ServicerContext) -> devices_pb2.PairingCode:
        return self._answer(request, self.code if self.code.HasField("revoked_at") else _revoked(self.code))

    async def ListPairingCodeEnrollments(
        self, request: Any, context: ServicerContext
    ) -> devices_pb2.PairingCodeEnrollmentPage:
        enrollment = devices_pb2.PairingCodeEnrollment(
            id="018f0000-0000-7000-8000-0000000000e1", computer_id="018f0000-0000-7000-8000-0000000000c1",
            name="Shop 1", hostname="shop-1", client_address="203.0.113.7", enrolled_at="2026-05-01T13:00:00.000Z",
        )  # fmt: skip
        return self._answer(request, devices_pb2.PairingCodeEnrollmentPage(items=[enrollment]))

    async def EnrollWithPairingCode(self, request: Any, context: ServicerContext) -> devices_pb2.EnrollComputerResponse:
        computer = devices_pb2.Computer(id="018f0000-0000-7000-8000-0000000000c2")
        return self._answer(request, devices_pb2.EnrollComputerResponse(computer=computer, agent_credential="pca_x"))


Served = tuple[FakePairing, devices_pb2_grpc.DevicesStub]


@pytest.fixture(scope="module")
async def fake() -> AsyncIterator[Served]:
    servicer = FakePairing()
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, servicer) as channel:
        yield servicer, devices_pb2_grpc.DevicesStub(channel)


@pytest.fixture
def devices(fake: Served) -> FakePairing:
    fake[0].requests.clear()
    fake[0].refusal = None
    fake[0].code = CODE
    return fake[0]


@pytest.fixture(scope="module")
async def client(deps: GatewayDeps, fake: Served) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(replace(deps, devices=fake[1]))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway.test") as http:
        yield http


async def test_an_admin_key_makes_lists_reads_and_revokes_codes_of_its_mode(
    client: httpx.AsyncClient, tenant: Tenant, devices: FakePairing
) -> None:
    admin = {"Authorization": f"Bearer {await tenant.make_key(('admin',), mode='live')}"}
    created = await client.post(
        "/v1/agent/pairing-codes", json={"maxUses": 3.0, "expireAfter": 3600, "description": "Shops"}, headers=admin
    )
    assert created.status_code == 201, created.text
    assert created.json() == {
        "id": CODE_ID, "hint": "7K4M", "description": "Shops", "mode": "test", "maxUses": 3, "uses": 1,
        "usesLeft": 2, "state": "active", "expiresAt": "2026-05-02T12:00:00.000Z", "revokedAt": None,
        "createdAt": "2026-05-01T12:00:00.000Z", "code": "7K4M-9QXP-3T8D",
    }  # fmt: skip
    sent = devices.requests[-1]
    assert (sent.scope.organization_id, sent.scope.mode) == (tenant.organization_id, "live")
    assert (sent.max_uses, sent.expire_after_seconds, sent.description) == (3, 3600, "Shops")
    assert (await client.post("/v1/agent/pairing-codes", json={}, headers=admin)).status_code == 201
    assert not devices.requests[-1].HasField("max_uses") and not devices.requests[-1].HasField("expire_after_seconds")

    listed = (await client.get("/v1/agent/pairing-codes?limit=5&dir=asc", headers=admin)).json()
    assert set(listed["data"][0]) == CODE_FIELDS and listed["hasMore"] is False
    assert (devices.requests[-1].page.limit, devices.requests[-1].page.dir) == (5, "asc")
    assert (await client.get(f"/v1/agent/pairing-codes/{CODE_ID}", headers=admin)).json()["hint"] == "7K4M"
    history = (await client.get(f"/v1/agent/pairing-codes/{CODE_ID}/enrollments", headers=admin)).json()
    assert history["data"] == [
        {
            "id": "018f0000-0000-7000-8000-0000000000e1", "computerId": "018f0000-0000-7000-8000-0000000000c1",
            "name": "Shop 1", "hostname": "shop-1", "clientAddress": "203.0.113.7",
            "enrolledAt": "2026-05-01T13:00:00.000Z",
        }
    ]  # fmt: skip
    revoked = await client.delete(f"/v1/agent/pairing-codes/{CODE_ID}", headers=admin)
    assert revoked.status_code == 204 and revoked.content == b""
    assert devices.requests[-1].id == CODE_ID


async def test_making_and_revoking_a_code_are_in_the_audit_log_by_its_hint_and_once(
    client: httpx.AsyncClient, tenant: Tenant, devices: FakePairing, db: Database
) -> None:
    admin = {"Authorization": f"Bearer {await tenant.make_key(('admin',), mode='live')}"}
    created = await client.post("/v1/agent/pairing-codes", json={"maxUses": 3}, headers=admin)
    assert created.status_code == 201, created.text
    assert (await client.delete(f"/v1/agent/pairing-codes/{CODE_ID}", headers=admin)).status_code == 204
    devices.code = _revoked(CODE)
    assert (await client.delete(f"/v1/agent/pairing-codes/{CODE_ID}", headers=admin)).status_code == 204

    async with db.read() as session:
        entries = (await audit.entries(session, tenant.organization_id, "live", PageRequest())).items
    assert [(e.action, e.target_id, e.target, e.mode, e.details) for e in entries] == [
        ("pairing_code.revoked", CODE_ID, "Shops (7K4M-…)", "live", {"uses": 1}),
        ("pairing_code.created", CODE_ID, "Shops (7K4M-…)", "live", {"maxUses": 3, "expiresAt": CODE.expires_at}),
    ], "a code revoked again is not recorded again"
    assert all(e.actor.startswith("API key (svc_live_") for e in entries)
    assert all("9QXP" not in str(e) for e in entries), "never the code itself"


async def test_codes_need_the_admin_scope_and_well_formed_bodies_and_ids(
    client: httpx.AsyncClient, tenant: Tenant, devices: FakePairing, assert_error: AssertError
) -> None:
    read = {"Authorization": f"Bearer {await tenant.make_key(('read', 'print'))}"}
    admin = {"Authorization": f"Bearer {await tenant.make_key(('admin',))}"}
    for method, path in (("POST", ""), ("GET", ""), ("GET", f"/{CODE_ID}"), ("DELETE", f"/{CODE_ID}")):
        answer = await client.request(method, f"/v1/agent/pairing-codes{path}", json={}, headers=read)
        assert_error(answer, 403, "insufficient_scope")
    assert_error(await client.get("/v1/agent/pairing-codes"), 401, "unauthorized")
    bad_bodies: list[dict[str, Any]] = [
        {"maxUses": 0}, {"maxUses": 1001}, {"maxUses": "3"}, {"maxUses": None}, {"expireAfter": 604801},
        {"code": "x"}, {"description": "d" * 201},
    ]  # fmt: skip
    for body in bad_bodies:
        assert_error(await client.post("/v1/agent/pairing-codes", json=body, headers=admin), 400, "invalid_request")
    assert_error(await client.get("/v1/agent/pairing-codes/not-a-uuid", headers=admin), 404, "not_found")
    assert_error(await client.delete("/v1/agent/pairing-codes/not-a-uuid", headers=admin), 404, "not_found")
    assert devices.requests == []
    devices.refusal = ApiError("not_found", "No such pairing code.")
    assert_error(await client.delete(f"/v1/agent/pairing-codes/{CODE_ID}", headers=admin), 404, "not_found")


async def test_a_code_enrols_without_a_key_and_gets_what_key_enrolment_gets(
    client: httpx.AsyncClient, devices: FakePairing, assert_error: AssertError
) -> None:
    answer = await client.post("/v1/agent/pair", json={"code": "7k4m 9qxp 3t8d", "hostname": "shop-2"})
    assert answer.status_code == 201, answer.text
    assert answer.json() == {
        "computerId": "018f0000-0000-7000-8000-0000000000c2",
        "credential": "pca_x",
        "agentGatewayUrl": "http://agents.example.test:8081",
    }
    sent = devices.requests[-1]
    assert (sent.code, sent.hostname, sent.name, sent.client_address) == ("7k4m 9qxp 3t8d", "shop-2", "", "127.0.0.1")
    await client.post("/v1/agent/pair", json={"code": "c", "hostname": "h", "name": "Front desk"})
    assert devices.requests[-1].name == "Front desk"
    bad_bodies: list[dict[str, Any]] = [
        {"hostname": "h"}, {"code": "", "hostname": "h"}, {"code": "c"}, {"code": 7, "hostname": "h"},
        {"code": "c", "hostname": "h", "apiKey": "k"}, {"code": "c" * 65, "hostname": "h"},
    ]  # fmt: skip
    for body in bad_bodies:
        assert_error(await client.post("/v1/agent/pair", json=body), 400, "invalid_request")
    assert len(devices.requests) == 2


async def test_refusals_of_a_code_keep_the_envelope_and_a_limited_one_says_when_to_come_back(
    client: httpx.AsyncClient, devices: FakePairing, assert_error: AssertError
) -> None:
    devices.refusal = ApiError("unauthorized", "This pairing code is wrong, has expired, was used up or was revoked.")
    refused = await client.post("/v1/agent/pair", json={"code": "c", "hostname": "h"})
    assert assert_error(refused, 401, "unauthorized")["message"] == devices.refusal.message
    assert "Retry-After" not in refused.headers
    devices.refusal = ApiError("rate_limited", "Too many wrong pairing codes from this address.", {"retry_after": 42})
    limited = await client.post("/v1/agent/pair", json={"code": "c", "hostname": "h"})
    assert_error(limited, 429, "rate_limited")
    assert limited.headers["Retry-After"] == "42"


async def test_enrolment_by_code_is_charged_to_the_client_address_whatever_headers_it_carries(
    deps: GatewayDeps, fake: Served, devices: FakePairing, assert_error: AssertError
) -> None:
    limiter = RateLimiter(2, clock=lambda: 0.0)
    app = create_app(replace(deps, devices=fake[1], rate_limiter=limiter))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway.test") as http:
        forged = {"Authorization": "Bearer svc_test_forged"}
        for _ in range(2):
            answer = await http.post("/v1/agent/pair", json={"code": "c", "hostname": "h"}, headers=forged)
            assert answer.status_code == 201 and answer.headers["RateLimit-Limit"] == "2"
        assert_error(await http.post("/v1/agent/pair", json={"code": "c", "hostname": "h"}), 429, "rate_limited")
    assert len(devices.requests) == 2


async def test_the_document_shows_both_enrolments_and_the_codes_without_a_key_for_pairing(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    pair = document["paths"]["/v1/agent/pair"]["post"]
    assert pair["security"] == [] and pair["summary"]
    body = pair["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/CodeEnrollment"}
    assert {"code", "hostname"} <= set(document["components"]["schemas"]["CodeEnrollment"]["required"])
    assert "security" not in document["paths"]["/v1/agent/enroll"]["post"]
    codes = document["paths"]["/v1/agent/pairing-codes"]
    assert set(codes) == {"get", "post"} and codes["post"]["operationId"] == "create_pairing_code"
    assert set(document["paths"]["/v1/agent/pairing-codes/{id}"]) == {"get", "delete"}
    created = document["components"]["schemas"]["CreatedPairingCode"]
    assert set(created["properties"]) == CODE_FIELDS | {"code"}
