"""Timers live on the job rows, not in the dispatcher: a dispatcher killed while timers are due
loses none of them, and after a restart (here beside a second replica) each fires once."""

from __future__ import annotations

import time
from datetime import datetime

from printcloud.devstack.ports import free_port
from printcloud.devstack.processes import ServiceProcess
from tests.e2e.client import eventually
from tests.e2e.lifecycle.conftest import (
    RESEND_AFTER_SECONDS,
    SPOOLER_TIMEOUT_SECONDS,
    Org,
    history,
    submit,
    wait_for_state,
)
from tests.e2e.lifecycle.scripted_agent import Reply, always


def _seconds(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_timers_due_while_the_dispatcher_is_dead_fire_once_after_restart(lifecycle_stack, org: Org, enroll) -> None:
    stalled = enroll(always(Reply.STALL))
    silent = enroll(always(Reply.IGNORE))
    lifecycle_stack.kill("dispatcher")
    second = None
    try:
        printing = wait_for_state(org.admin, submit(org.admin, stalled.printer_id)["id"], "printing")
        sent = wait_for_state(org.admin, submit(org.admin, silent.printer_id)["id"], "sent")
        # Past both deadlines with no dispatcher: the timers are due and nothing has fired.
        deadline = max(
            _seconds(printing["printingAt"]) + SPOOLER_TIMEOUT_SECONDS, _seconds(sent["sentAt"]) + RESEND_AFTER_SECONDS
        )
        time.sleep(max(0.0, deadline - time.time()) + 1.0)
        assert org.admin.get(f"/v1/printjobs/{printing['id']}").json()["state"] == "printing"
        assert silent.agent.sends[sent["id"]] == 1

        lifecycle_stack.restart("dispatcher")
        # A second replica polling the same rows at the same time must not fire anything twice.
        env = {**lifecycle_stack.services["dispatcher"].env, "PRINTCLOUD_OPS_PORT": str(free_port())}
        second = ServiceProcess("dispatcher-2", "printcloud.dispatcher", env, lifecycle_stack.sink)
        second.start()

        failed = wait_for_state(org.admin, printing["id"], "error")
        assert failed["stateMessage"] == "spooler timeout"
        eventually(
            lambda: [c["state"] for c in history(org.admin, sent["id"])] == ["queued", "sent", "queued"],
            timeout=30,
            what="the unacknowledged job back in queued",
        )
    finally:
        if second is not None:
            second.stop()
        if not lifecycle_stack.services["dispatcher"].running:
            lifecycle_stack.restart("dispatcher")
    assert [c["state"] for c in history(org.admin, printing["id"])].count("error") == 1
    assert silent.agent.sends[sent["id"]] == 4  # one send and exactly three resends
