"""Plans, the live-print quota and the usage report through the public API, on three replicas."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.e2e.client import PDF_BASE64, api, assert_error, cli, eventually
from tests.e2e.lifecycle.scripted_agent import PRINTER_NAME, Reply, ScriptedAgent, always
from tests.e2e.limits.conftest import PLAN_ENV, PLANS, UPGRADE_URL, LimitsStack
from tests.e2e.tenants import create_key, create_org

CONCURRENT = 50
KEYS = 5  # the 50 creates spread over keys, so that the request rate (20 a second a key) is not what refuses them


def _job(printer_id: str, title: str) -> dict[str, str]:
    return {"printerId": printer_id, "title": title, "contentType": "pdf_base64", "content": PDF_BASE64}


def _live_printer(limits_stack: LimitsStack, admin: httpx.Client) -> tuple[ScriptedAgent, str]:
    enrolled = admin.post("/v1/agent/enroll", json={"hostname": "quota-pc"}).json()
    agent = ScriptedAgent(enrolled["credential"], always(Reply.IGNORE))
    agent.connect(limits_stack.stack.agent_gateway_url)

    def printer() -> str | None:
        listed = admin.get(f"/v1/computers/{enrolled['computerId']}/printers").json()["data"]
        return next((p["id"] for p in listed if p["name"] == PRINTER_NAME), None)

    return agent, eventually(printer, what="the live printer")


def test_quota_holds_exactly_under_concurrency_and_usage_reports_it(limits_stack: LimitsStack) -> None:
    stack = limits_stack.stack
    org = create_org(stack, "Quota")
    set_plan = ("admin", "set-plan", "--org", org, "--plan")
    assert cli(stack.database_url, *set_plan, "tiny", env=PLAN_ENV) == {"id": org, "plan": "tiny"}
    quota = PLANS["tiny"]
    replicas = itertools.cycle(stack.api_urls.values())
    keys = [create_key(stack, org, "live", "read,print,admin") for _ in range(KEYS)]
    clients = [api(next(replicas), keys[n % KEYS]) for n in range(CONCURRENT)]
    test_client = api(stack.api_url, create_key(stack, org, "test", "read,print"))
    agent, printer_id = _live_printer(limits_stack, clients[0])
    try:
        assert clients[0].get("/v1/whoami").json()["plan"] == "tiny"
        for n in range(quota - 10):
            assert clients[n].post("/v1/printjobs", json=_job(printer_id, f"before {n}")).status_code == 201

        with ThreadPoolExecutor(max_workers=CONCURRENT) as pool:
            answers = list(
                pool.map(lambda n: clients[n].post("/v1/printjobs", json=_job(printer_id, "race")), range(CONCURRENT))
            )
        assert sum(a.status_code == 201 for a in answers) == 10
        for answer in answers:
            if answer.status_code != 201:
                error = assert_error(answer, 402, "quota_exceeded")
                assert error["upgrade_url"] == UPGRADE_URL
                assert "retry-after" not in answer.headers
        listed = clients[0].get("/v1/printjobs", params={"limit": 100}).json()["data"]
        assert len(listed) == quota and sum(job["title"] == "race" for job in listed) == 10

        # Test jobs never count, and are still accepted with the live quota used up.
        virtual = eventually(
            lambda: next((p["id"] for p in test_client.get("/v1/printers").json()["data"]), None),
            timeout=60,
            what="a virtual printer",
        )
        for n in range(3):
            assert test_client.post("/v1/printjobs", json=_job(virtual, f"test {n}")).status_code == 201

        usage = test_client.get("/v1/usage").json()
        assert usage == clients[1].get("/v1/usage").json()  # one report for the account, whatever the key's mode
        assert usage["plan"] == "tiny" and usage["upgradeUrl"] == UPGRADE_URL
        assert usage["livePrints"] == {"used": quota, "quota": quota, "remaining": 0}
        assert (usage["testJobs"]["today"], usage["testJobs"]["remaining"]) == (3, usage["testJobs"]["dailyCap"] - 3)
        assert usage["period"]["start"] < listed[0]["createdAt"] < usage["period"]["end"]

        # An upgrade takes effect at once.
        cli(stack.database_url, *set_plan, "free", env=PLAN_ENV)
        assert clients[2].post("/v1/printjobs", json=_job(printer_id, "after upgrade")).status_code == 201
        assert clients[2].get("/v1/usage").json()["livePrints"] == {
            "used": quota + 1,
            "quota": PLANS["free"],
            "remaining": PLANS["free"] - quota - 1,
        }
    finally:
        agent.shutdown()
        for client in [*clients, test_client]:
            client.close()
