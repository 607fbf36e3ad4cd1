"""Pairing codes through the running stack: a fleet of agents (the real `printcloud-agent` CLI)
enrolling with one code until it is used up, and each refusal: wrong, expired, used up, revoked
and rate limited, with the same answer for the first four."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, sql
from tests.e2e.conftest import Tenant
from tests.e2e.stacks import LogFile
from tests.e2e.tenants import create_key, create_org

AGENT_CLI = str(Path(sys.executable).with_name("printcloud-agent"))
REFUSED = "This pairing code is wrong, has expired, was used up or was revoked."


@pytest.fixture(scope="module")
def fleet_org(stack: Stack) -> str:
    return create_org(stack, "Fleet")


@pytest.fixture(scope="module")
def owner(stack: Stack, fleet_org: str) -> Iterator[httpx.Client]:
    with api(stack.api_url, create_key(stack, fleet_org, "live", "read,admin")) as client:
        yield client


def _code(owner: httpx.Client, **terms: object) -> dict:
    created = owner.post("/v1/agent/pairing-codes", json=terms)
    assert created.status_code == 201, created.text
    return dict(created.json())


def _pair(stack: Stack, code: str, hostname: str, source: str = "127.0.0.1") -> httpx.Response:
    # The source address is the client address the limits count: any of loopback's 127.0.0.0/8.
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30) as client:
        return client.post(f"{stack.api_url}/v1/agent/pair", json={"code": code, "hostname": hostname})


def _enrol_args(stack: Stack, code: str) -> list[str]:
    return ["enroll", "--server", stack.api_url, "--code", code]


def test_a_fleet_enrols_with_one_code_until_it_is_used_up(stack: Stack, owner: httpx.Client, tmp_path: Path) -> None:
    code = _code(owner, maxUses=3, description="Shops, wave 1")
    assert (code["usesLeft"], code["state"], code["hint"]) == (3, "active", code["code"][:4])
    configs = [tmp_path / f"shop-{i}" / "agent.json" for i in range(4)]
    # Four computers at once for three uses: exactly three enrol, whichever wins the race.
    shops = [
        subprocess.Popen(
            [AGENT_CLI, "--config", str(config), *_enrol_args(stack, code["code"]), "--name", f"Shop {i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, config in enumerate(configs)
    ]
    outcomes = [(shop.wait(timeout=60), *shop.communicate()) for shop in shops]
    enrolled = [config for config, (status, _, _) in zip(configs, outcomes, strict=True) if status == 0]
    [(status, out, err)] = [outcome for outcome in outcomes if outcome[0] != 0]
    assert len(enrolled) == 3 and status == 1 and out == ""
    assert err.startswith(f"enrolment failed: HTTP 401: {REFUSED}") and err.count("\n") == 1, err
    assert "Traceback" not in err

    computers = {json.loads(config.read_text())["computerId"] for config in enrolled}
    shown = owner.get(f"/v1/agent/pairing-codes/{code['id']}").json()
    assert (shown["uses"], shown["usesLeft"], shown["state"]) == (3, 0, "used_up")
    history = owner.get(f"/v1/agent/pairing-codes/{code['id']}/enrollments").json()["data"]
    assert {entry["computerId"] for entry in history} == computers
    assert {entry["clientAddress"] for entry in history} == {"127.0.0.1"}
    listed = {c["id"]: c for c in owner.get("/v1/computers?limit=100").json()["data"]}
    assert computers <= set(listed) and all(listed[c]["name"].startswith("Shop ") for c in computers)
    assert code["code"] not in json.dumps(owner.get("/v1/agent/pairing-codes").json())


def test_wrong_expired_used_up_and_revoked_codes_are_one_and_the_same_401(stack: Stack, owner: httpx.Client) -> None:
    expired = _code(owner, expireAfter=3600)
    expire = "UPDATE devices.pairing_codes SET expires_at = now() - interval '1 second' WHERE id = $1"
    sql(stack.database_url, expire, uuid.UUID(expired["id"]))
    used = _code(owner)
    assert _pair(stack, used["code"], "first-till").status_code == 201
    revoked = _code(owner)
    assert owner.delete(f"/v1/agent/pairing-codes/{revoked['id']}").status_code == 204
    assert owner.delete(f"/v1/agent/pairing-codes/{revoked['id']}").status_code == 204
    states = {c["id"]: c["state"] for c in owner.get("/v1/agent/pairing-codes?limit=100").json()["data"]}
    assert (states[expired["id"]], states[used["id"]], states[revoked["id"]]) == ("expired", "used_up", "revoked")

    wrong = "ZZZZ-" + used["code"][5:]
    answers = [_pair(stack, code, "till") for code in (wrong, expired["code"], used["code"], revoked["code"])]
    for answer in answers:
        assert answer.status_code == 401
        assert answer.json()["error"]["request_id"] == answer.headers["x-request-id"]
    bodies = {json.dumps({**a.json()["error"], "request_id": None}) for a in answers}
    assert bodies == {json.dumps({"code": "unauthorized", "message": REFUSED + _REST, "request_id": None})}
    assert {a.headers.get("retry-after") for a in answers} == {None}


_REST = " Check it, or ask an owner of the organization for a new one."


def test_wrong_codes_from_one_address_are_limited_and_others_are_not(stack: Stack, owner: httpx.Client) -> None:
    good = _code(owner, maxUses=2)
    for attempt in range(10):
        assert _pair(stack, f"WR0N-G{attempt:03d}-CODE", "guesser", source="127.0.0.2").status_code == 401
    limited = _pair(stack, good["code"], "guesser", source="127.0.0.2")
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 900
    assert owner.get(f"/v1/agent/pairing-codes/{good['id']}").json()["uses"] == 0
    assert _pair(stack, good["code"], "honest", source="127.0.0.3").status_code == 201


def test_codes_belong_to_their_organization_and_mode(
    stack: Stack, owner: httpx.Client, fleet_org: str, other_tenant: Tenant
) -> None:
    code = _code(owner)
    with api(stack.api_url, create_key(stack, fleet_org, "test", "read,admin")) as test_mode:
        assert test_mode.get(f"/v1/agent/pairing-codes/{code['id']}").status_code == 404
        assert code["id"] not in {c["id"] for c in test_mode.get("/v1/agent/pairing-codes").json()["data"]}
    with api(stack.api_url, other_tenant.live_key) as stranger:
        assert stranger.delete(f"/v1/agent/pairing-codes/{code['id']}").status_code == 404
        assert stranger.get(f"/v1/agent/pairing-codes/{code['id']}/enrollments").status_code == 404
    assert owner.get(f"/v1/agent/pairing-codes/{code['id']}").json()["state"] == "active"
    enrolled = _pair(stack, code["code"], "live-till").json()
    assert owner.get(f"/v1/computers/{enrolled['computerId']}").json()["mode"] == "live"


def test_no_pairing_code_reaches_any_log(stack: Stack, owner: httpx.Client, service_logs: LogFile) -> None:
    code = _code(owner)["code"]
    wrong = "Q" + code[1:]
    assert _pair(stack, code, "logged-till").status_code == 201
    assert _pair(stack, wrong, "logged-till").status_code == 401
    assert _pair(stack, f"{code}\u0000", "logged-till").status_code == 400
    logged = service_logs.path.read_text()
    assert service_logs.records(), "the services log as they run"
    for secret in (code, wrong, code.replace("-", ""), wrong.replace("-", "")):
        assert secret not in logged
