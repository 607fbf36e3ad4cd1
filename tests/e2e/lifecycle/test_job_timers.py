"""Job timers with the durations shortened (resend after 2 s, spooler timeout 3 s): resends,
return to queued, spooler timeout, expiry, and jobs waiting for an offline computer."""

from __future__ import annotations

from tests.e2e.client import eventually
from tests.e2e.lifecycle.conftest import Org, computer_state, history, submit, wait_for_event, wait_for_state
from tests.e2e.lifecycle.scripted_agent import Reply, always


def _states(org: Org, job_id: str) -> list[str]:
    return [change["state"] for change in history(org.admin, job_id)]


def test_a_job_is_resent_until_the_agent_acknowledges_it(org: Org, enroll) -> None:
    # The agent loses the first two sends and takes the third.
    device = enroll(lambda _job, nth: Reply.IGNORE if nth <= 2 else Reply.PRINT)
    job = submit(org.admin, device.printer_id)
    done = wait_for_state(org.admin, job["id"], "done", timeout=30)
    assert device.agent.sends[job["id"]] == 3
    # A resend is not a state change: one `sent`, then the agent's states.
    assert _states(org, job["id"]) == ["queued", "sent", "received", "printing", "done"]
    assert done["sentAt"] < done["receivedAt"]


def test_a_job_never_acknowledged_returns_to_queued_after_three_resends(org: Org, enroll) -> None:
    device = enroll(always(Reply.IGNORE))
    job = submit(org.admin, device.printer_id)
    queued = eventually(
        lambda: _states(org, job["id"]) == ["queued", "sent", "queued"], timeout=30, what="the return to queued"
    )
    assert queued
    assert device.agent.sends[job["id"]] == 4  # the first send and three resends
    requeue = history(org.admin, job["id"])[-1]
    assert (requeue["actor"], requeue["message"]) == ("system", "not acknowledged after 3 resends")
    assert org.admin.get(f"/v1/printjobs/{job['id']}").json()["state"] == "queued"


def test_a_job_printing_too_long_ends_in_spooler_timeout(org: Org, enroll) -> None:
    device = enroll(always(Reply.STALL))
    job = submit(org.admin, device.printer_id)
    failed = wait_for_state(org.admin, job["id"], "error", timeout=30)
    assert failed["stateMessage"] == "spooler timeout"
    assert failed["finishedAt"] is not None
    changes = history(org.admin, job["id"])
    assert [c["state"] for c in changes] == ["queued", "sent", "received", "printing", "error"]
    assert (changes[-1]["actor"], changes[-1]["message"]) == ("system", "spooler timeout")


def test_a_job_whose_computer_stays_offline_expires(domain_events, org: Org, enroll) -> None:
    device = enroll()
    device.agent.disconnect()
    eventually(lambda: computer_state(org.admin, device.computer_id) == "offline", what="computer offline")
    # 60 s is the smallest `expireAfter` the API accepts.
    job = submit(org.admin, device.printer_id, expireAfter=60)
    expired = wait_for_state(org.admin, job["id"], "expired", timeout=90)
    assert expired["finishedAt"] >= expired["expiresAt"]
    changes = history(org.admin, job["id"])
    assert [(c["state"], c["actor"]) for c in changes] == [("queued", "api"), ("expired", "system")]
    event = wait_for_event(domain_events, "printjob.expired", job["id"])
    assert event == expired


def test_a_job_waits_in_queued_while_its_computer_is_offline(lifecycle_stack, org: Org, enroll) -> None:
    device = enroll()
    device.agent.disconnect()
    eventually(lambda: computer_state(org.admin, device.computer_id) == "offline", what="computer offline")
    job = submit(org.admin, device.printer_id)
    assert org.admin.get(f"/v1/printjobs/{job['id']}").json()["state"] == "queued"
    # Back on the other replica: the replica taking the connection sends what is queued.
    device.agent.connect(lifecycle_stack.agent_gateway_urls["agent-gateway-2"])
    wait_for_state(org.admin, job["id"], "done")
    assert _states(org, job["id"]) == ["queued", "sent", "received", "printing", "done"]
