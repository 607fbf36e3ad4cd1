"""Pairing codes over the real gRPC servicer and PostgreSQL: making, listing and revoking them,
fleet enrolment with one code, the refusals, racing agents and the limits on wrong codes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.pairing_attempts import AttemptLimits
from printcloud.devices.domain.pairing_codes import ALPHABET, MAX_LIVE_CODES, REFUSED_MESSAGE, pairing_key
from printcloud.devices.transport.servicer import DevicesServicer
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.devices.use_cases.pairing import PairingCodes
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc
from tests.support.grpc_server import serving

KEY = pairing_key("pairing-test-secret-" + "x" * 20)


@pytest.fixture(scope="session")
def pairing(db: Database) -> PairingCodes:
    return PairingCodes(db, KEY)


@pytest.fixture(scope="session")
async def stub(db: Database, pairing: PairingCodes) -> AsyncIterator[devices_pb2_grpc.DevicesStub]:
    servicer = DevicesServicer(DeviceUseCases.on(db), pairing)
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, servicer) as channel:
        yield devices_pb2_grpc.DevicesStub(channel)


def _scope(scope: Scope) -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(scope.organization_id), mode=scope.mode)


def _address() -> str:
    """A client address of the test's own, so failures counted by other tests never reach it."""
    return f"198.51.100.{uuid.uuid4().int % 250}-{uuid.uuid4().hex[:6]}"


async def _create(
    stub: devices_pb2_grpc.DevicesStub,
    scope: Scope,
    max_uses: int | None = None,
    expire_after_seconds: int | None = None,
    description: str = "",
) -> devices_pb2.CreatedPairingCode:
    request = devices_pb2.CreatePairingCodeRequest(
        scope=_scope(scope), max_uses=max_uses, expire_after_seconds=expire_after_seconds, description=description
    )
    return await rpc.call(stub.CreatePairingCode, request)


async def _get(stub: devices_pb2_grpc.DevicesStub, scope: Scope, code_id: str) -> devices_pb2.PairingCode:
    return await rpc.call(stub.GetPairingCode, devices_pb2.PairingCodeRef(scope=_scope(scope), id=code_id))


async def _enroll(
    stub: devices_pb2_grpc.DevicesStub, code: str, hostname: str, address: str
) -> devices_pb2.EnrollComputerResponse:
    request = devices_pb2.EnrollWithPairingCodeRequest(code=code, hostname=hostname, client_address=address)
    return await rpc.call(stub.EnrollWithPairingCode, request)


async def _refusal(answer: object) -> ApiError:
    with pytest.raises(ApiError) as caught:
        await answer  # type: ignore[misc]
    return caught.value


async def test_a_code_is_shown_once_listed_with_its_uses_and_revoked_in_its_scope_only(
    stub: devices_pb2_grpc.DevicesStub, scope: Scope
) -> None:
    created = await _create(stub, scope, max_uses=5, expire_after_seconds=3600, description="Shops, wave 1")
    code = created.pairing_code
    assert created.code[:4] == code.hint and len(created.code) == 14
    assert (code.max_uses, code.uses, code.state, code.description) == (5, 0, "active", "Shops, wave 1")
    assert code.mode == scope.mode and not code.HasField("revoked_at")

    listed = await rpc.call(stub.ListPairingCodes, devices_pb2.ListPairingCodesRequest(scope=_scope(scope)))
    assert [c.id for c in listed.items] == [code.id]
    assert created.code not in str(listed)

    ref = devices_pb2.PairingCodeRef(scope=_scope(scope), id=code.id)
    for other in (Scope(uuid7(), scope.mode), Scope(scope.organization_id, "test")):
        foreign = devices_pb2.PairingCodeRef(scope=_scope(other), id=code.id)
        assert (await _refusal(rpc.call(stub.GetPairingCode, foreign))).code == "not_found"
        assert (await _refusal(rpc.call(stub.RevokePairingCode, foreign))).code == "not_found"
    revoked = await rpc.call(stub.RevokePairingCode, ref)
    assert revoked.state == "revoked" and revoked.HasField("revoked_at")
    assert (await rpc.call(stub.RevokePairingCode, ref)).revoked_at == revoked.revoked_at
    assert (await _get(stub, scope, code.id)).state == "revoked"
    default = (await _create(stub, scope)).pairing_code
    assert default.max_uses == 1 and default.state == "active"


async def test_one_code_enrols_a_fleet_until_it_is_used_up_and_shows_where_it_went(
    stub: devices_pb2_grpc.DevicesStub, scope: Scope
) -> None:
    created = await _create(stub, scope, max_uses=3)
    address = _address()
    enrolled = [await _enroll(stub, created.code.lower().replace("-", " "), f"shop-{i}", address) for i in range(3)]

    for answer in enrolled:
        identity = await rpc.call(
            stub.AuthenticateAgent, devices_pb2.AuthenticateAgentRequest(agent_credential=answer.agent_credential)
        )
        assert (identity.organization_id, identity.mode) == (str(scope.organization_id), scope.mode)
        assert identity.computer_id == answer.computer.id and answer.agent_credential.startswith("pca_")
    refused = await _refusal(_enroll(stub, created.code, "shop-3", address))
    assert (refused.code, refused.message) == ("unauthorized", REFUSED_MESSAGE)

    code = await rpc.call(
        stub.GetPairingCode, devices_pb2.PairingCodeRef(scope=_scope(scope), id=created.pairing_code.id)
    )
    assert (code.uses, code.state) == (3, "used_up")
    history = await rpc.call(
        stub.ListPairingCodeEnrollments,
        devices_pb2.ListPairingCodeEnrollmentsRequest(
            scope=_scope(scope), id=code.id, page=common_pb2.PageRequest(dir="asc")
        ),
    )
    assert [(e.computer_id, e.hostname, e.client_address) for e in history.items] == [
        (answer.computer.id, f"shop-{i}", address) for i, answer in enumerate(enrolled)
    ]
    computers = await rpc.call(stub.ListComputers, devices_pb2.ListComputersRequest(scope=_scope(scope)))
    assert sorted(c.name for c in computers.items) == ["shop-0", "shop-1", "shop-2"]
    other = devices_pb2.ListPairingCodeEnrollmentsRequest(scope=_scope(Scope(uuid7(), scope.mode)), id=code.id)
    assert (await _refusal(rpc.call(stub.ListPairingCodeEnrollments, other))).code == "not_found"


async def test_wrong_expired_used_up_and_revoked_codes_get_the_same_answer(
    stub: devices_pb2_grpc.DevicesStub, pairing: PairingCodes, scope: Scope
) -> None:
    address = _address()
    expiring = await _create(stub, scope, expire_after_seconds=60)
    used = await _create(stub, scope)
    await _enroll(stub, used.code, "first", address)
    revoked = await _create(stub, scope)
    await rpc.call(stub.RevokePairingCode, devices_pb2.PairingCodeRef(scope=_scope(scope), id=revoked.pairing_code.id))
    wrong = "".join(ALPHABET[(ALPHABET.index(c) + 1) % 32] if c != "-" else c for c in used.code)

    answers = [
        await _refusal(pairing.enroll(expiring.code, "", "late", address, now=utcnow() + timedelta(minutes=2))),
        await _refusal(_enroll(stub, used.code, "second", address)),
        await _refusal(_enroll(stub, revoked.code, "revoked", address)),
        await _refusal(_enroll(stub, wrong, "wrong", address)),
        await _refusal(_enroll(stub, "not even a code", "garbage", address)),
    ]
    assert {(a.code, a.message, repr(a.details)) for a in answers} == {("unauthorized", REFUSED_MESSAGE, "{}")}
    # Still one minute to go: the same code enrolled at its last moment would have worked.
    assert (await _enroll(stub, expiring.code, "in time", _address())).computer.name == "in time"


async def test_agents_racing_for_the_last_use_enrol_exactly_one_computer(
    stub: devices_pb2_grpc.DevicesStub, scope: Scope
) -> None:
    created = await _create(stub, scope, max_uses=1)
    answers = await asyncio.gather(
        *(_enroll(stub, created.code, f"racer-{i}", _address()) for i in range(8)), return_exceptions=True
    )
    winners = [a for a in answers if isinstance(a, devices_pb2.EnrollComputerResponse)]
    losers = [a for a in answers if isinstance(a, ApiError)]
    assert len(winners) == 1 and len(losers) == 7, answers
    assert {loser.code for loser in losers} == {"unauthorized"}
    computers = await rpc.call(stub.ListComputers, devices_pb2.ListComputersRequest(scope=_scope(scope)))
    assert [c.id for c in computers.items] == [winners[0].computer.id]
    code = await rpc.call(
        stub.GetPairingCode, devices_pb2.PairingCodeRef(scope=_scope(scope), id=created.pairing_code.id)
    )
    assert code.uses == 1


async def test_wrong_codes_are_limited_per_address_and_per_prefix_and_forgotten_after_the_window(
    db: Database, scope: Scope
) -> None:
    window = timedelta(minutes=15)
    limited = PairingCodes(db, KEY, AttemptLimits(per_address=3, per_prefix=4, window=window))
    code = (await limited.create(scope, None, 10, "")).code
    noisy, quiet = _address(), _address()
    prefix = "".join(ALPHABET[b % 32] for b in uuid.uuid4().bytes[:4])
    for i in range(3):
        assert (await _refusal(limited.enroll(f"{prefix}-0000-000{i}", "", "x", noisy))).code == "unauthorized"
    past = await _refusal(limited.enroll(code, "", "right code, too late", noisy))
    assert past.code == "rate_limited" and 0 < past.details["retry_after"] <= window.total_seconds()
    assert (await limited.enroll(code, "", "quiet", quiet))[0].name == "quiet"

    # One more failure with the prefix, from another address, fills the prefix's allowance.
    assert (await _refusal(limited.enroll(f"{prefix}-1111-1111", "", "x", _address()))).code == "unauthorized"
    by_prefix = await _refusal(limited.enroll(f"{prefix}-2222-2222", "", "x", _address()))
    assert by_prefix.code == "rate_limited" and "starting like this one" in by_prefix.message
    assert (await limited.enroll(code, "", "other prefix", _address()))[0].name == "other prefix"

    assert await limited.purge_failures(utcnow() + window) >= 8
    assert (await limited.enroll(code, "", "after the window", noisy))[0].name == "after the window"


async def test_an_organization_holds_a_bounded_number_of_live_codes(pairing: PairingCodes, scope: Scope) -> None:
    created = [await pairing.create(scope, None, None, "") for _ in range(MAX_LIVE_CODES)]
    assert (await _refusal(pairing.create(scope, None, None, ""))).code == "conflict"
    assert (await pairing.create(Scope(scope.organization_id, "test"), None, None, "")).code
    await pairing.revoke(scope, created[0].row.id)
    await pairing.create(scope, None, None, "")
    listed = await pairing.list(scope, PageRequest.parse("100", None, None))
    assert len(listed.items) == 100 and listed.has_more
