"""Two agent-gateway replicas: agents on either get their jobs; when one replica dies its
computers go offline within the stated bound, and come back online on the other."""

from __future__ import annotations

import time

from tests.e2e.client import eventually
from tests.e2e.lifecycle.conftest import (
    OFFLINE_BOUND_SECONDS,
    Org,
    computer_state,
    printer_of,
    submit,
    wait_for_state,
)


def test_agents_on_both_replicas_get_their_jobs_and_survive_a_replica_dying(lifecycle_stack, org: Org, enroll) -> None:
    first = enroll(replica="agent-gateway")
    second = enroll(replica="agent-gateway-2")
    for device in (first, second):
        job = submit(org.admin, device.printer_id)
        wait_for_state(org.admin, job["id"], "done")
        assert device.agent.sends[job["id"]] == 1

    lifecycle_stack.kill("agent-gateway")  # no disconnect is ever reported for its agents
    try:
        killed_at = time.monotonic()
        eventually(lambda: computer_state(org.admin, first.computer_id) == "offline", what="first computer offline")
        # Slack for the test's own polling and process start-up jitter.
        assert time.monotonic() - killed_at <= OFFLINE_BOUND_SECONDS + 2.0
        assert printer_of(org.admin, first.computer_id)["state"] == "offline"
        assert computer_state(org.admin, second.computer_id) == "online"

        # A job while it is away waits, and goes out once the agent is on the other replica.
        waiting = submit(org.admin, first.printer_id)
        assert org.admin.get(f"/v1/printjobs/{waiting['id']}").json()["state"] == "queued"
        first.agent.connect(lifecycle_stack.agent_gateway_urls["agent-gateway-2"])
        assert computer_state(org.admin, first.computer_id) == "online"
        wait_for_state(org.admin, waiting["id"], "done")
        assert printer_of(org.admin, first.computer_id)["state"] == "online"
    finally:
        lifecycle_stack.restart("agent-gateway")
    # The restarted replica serves agents again.
    third = enroll(replica="agent-gateway")
    wait_for_state(org.admin, submit(org.admin, third.printer_id)["id"], "done")
