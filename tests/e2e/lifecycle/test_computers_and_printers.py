"""PATCH and DELETE of computers and PATCH of printers: every rule, the scopes, the 404s for
another organization or mode, and the events they and agent reports produce."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.e2e.client import assert_error, eventually
from tests.e2e.lifecycle.conftest import Org, computer_state, printer_of, submit, wait_for_event, wait_for_state
from tests.e2e.lifecycle.scripted_agent import Refused, Reply, always

UNKNOWN_ID = "018f0000-0000-7000-8000-0000000000ff"


def _patch(client: httpx.Client, path: str, body: Any) -> httpx.Response:
    return client.patch(path, json=body)


# --- Computers ---------------------------------------------------------------------------------


def test_patch_computer_renames_it_with_admin_scope_only(org: Org, other_org: Org, enroll) -> None:
    device = enroll()
    path = f"/v1/computers/{device.computer_id}"
    assert_error(_patch(org.reader, path, {"name": "x"}), 403, "insufficient_scope")
    renamed = _patch(org.admin, path, {"name": "Front desk"})
    assert renamed.status_code == 200, renamed.text
    assert (renamed.json()["name"], renamed.json()["state"]) == ("Front desk", "online")
    assert org.admin.get(path).json()["name"] == "Front desk"
    for body in ({"name": ""}, {"name": None}, {"name": 3}, {"enabled": "no"}, {"state": "disabled"}, [1]):
        assert_error(_patch(org.admin, path, body), 400, "invalid_request")
    assert_error(
        org.admin.patch(path, content=b"{", headers={"content-type": "application/json"}), 400, "invalid_request"
    )
    # Another organization, the other mode, an unknown id or no UUID at all: not found.
    assert_error(_patch(other_org.admin, path, {"name": "x"}), 404, "not_found")
    assert_error(_patch(org.live_admin, path, {"name": "x"}), 404, "not_found")
    assert_error(_patch(org.admin, f"/v1/computers/{UNKNOWN_ID}", {"name": "x"}), 404, "not_found")
    assert_error(_patch(org.admin, "/v1/computers/not-a-uuid", {"name": "x"}), 404, "not_found")
    assert org.admin.get(path).json()["name"] == "Front desk"


def test_disabling_disconnects_the_agent_and_refuses_it_until_re_enabled(
    lifecycle_stack, domain_events, org: Org, enroll
) -> None:
    device = enroll()
    path = f"/v1/computers/{device.computer_id}"
    disabled = _patch(org.admin, path, {"enabled": False})
    assert disabled.status_code == 200 and disabled.json()["state"] == "disabled"
    eventually(lambda: device.agent.close_code == 4403 and not device.agent.connected, what="agent closed with 4403")
    printer = printer_of(org.admin, device.computer_id)
    assert (printer["state"], printer["stateDetail"]) == ("offline", "Computer is disabled")
    offline = wait_for_event(domain_events, "computer.offline", device.computer_id)
    assert offline == {"id": device.computer_id, "name": "lab-pc", "state": "disabled"}

    with pytest.raises(Refused) as refused:
        device.agent.connect(lifecycle_stack.agent_gateway_url)
    assert refused.value.code == 4403
    assert computer_state(org.admin, device.computer_id) == "disabled"
    # Its jobs wait while it is disabled...
    job = submit(org.admin, device.printer_id)
    assert org.admin.get(f"/v1/printjobs/{job['id']}").json()["state"] == "queued"
    assert _patch(org.admin, path, {"enabled": False}).json()["state"] == "disabled"  # idempotent

    enabled = _patch(org.admin, path, {"enabled": True})
    assert enabled.status_code == 200 and enabled.json()["state"] == "offline"
    # ...and go out when the agent's next attempt makes it online.
    device.agent.connect(lifecycle_stack.agent_gateway_url)
    assert computer_state(org.admin, device.computer_id) == "online"
    wait_for_state(org.admin, job["id"], "done")


def test_delete_computer_soft_deletes_it_revokes_and_disconnects_its_agent(
    lifecycle_stack, domain_events, org: Org, other_org: Org, enroll
) -> None:
    device = enroll()
    path = f"/v1/computers/{device.computer_id}"
    assert_error(org.reader.delete(path), 403, "insufficient_scope")
    assert_error(other_org.admin.delete(path), 404, "not_found")
    assert_error(org.live_admin.delete(path), 404, "not_found")

    deleted = org.admin.delete(path)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert_error(org.admin.get(path), 404, "not_found")
    assert_error(org.admin.get(f"/v1/printers/{device.printer_id}"), 404, "not_found")
    assert_error(org.admin.get(f"{path}/printers"), 404, "not_found")
    assert device.computer_id not in [c["id"] for c in org.admin.get("/v1/computers?limit=100").json()["data"]]
    assert_error(org.admin.delete(path), 404, "not_found")
    assert_error(_patch(org.admin, path, {"name": "x"}), 404, "not_found")
    eventually(lambda: not device.agent.connected, what="agent disconnected")
    assert device.agent.close_code == 4403
    # Its credential is revoked: the agent is told to enrol again.
    with pytest.raises(Refused) as refused:
        device.agent.connect(lifecycle_stack.agent_gateway_url)
    assert refused.value.code == 4401
    removed = wait_for_event(domain_events, "printer.removed", device.printer_id)
    assert removed["computerId"] == device.computer_id
    response = org.admin.post(
        "/v1/printjobs",
        json={"printerId": device.printer_id, "title": "t", "contentType": "raw_base64", "content": "AA=="},
    )
    assert_error(response, 404, "not_found")


def test_deleting_a_computer_ends_its_outstanding_download_tokens(lifecycle_stack, org: Org, enroll) -> None:
    device = enroll(always(Reply.IGNORE))
    job = submit(org.admin, device.printer_id)
    message = eventually(lambda: device.agent.jobs.get(job["id"]), what="the job at the agent")
    download_url = lifecycle_stack.agent_gateway_url + message["downloadPath"]
    assert httpx.get(download_url).status_code == 200

    assert org.admin.delete(f"/v1/computers/{device.computer_id}").status_code == 204

    refused = httpx.get(download_url)
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error == {
        "code": "forbidden",
        "message": "The download token is no longer valid: its computer was deleted or disabled.",
        "request_id": refused.headers["X-Request-Id"],
    }


def test_the_virtual_computer_cannot_be_deleted(org: Org) -> None:
    virtual = eventually(
        lambda: next(
            (c for c in org.admin.get("/v1/computers").json()["data"] if c["name"] == "Virtual computer"), None
        ),
        what="the virtual computer",
    )
    error = assert_error(org.admin.delete(f"/v1/computers/{virtual['id']}"), 409, "conflict")
    assert "virtual" in error["message"]
    assert org.admin.get(f"/v1/computers/{virtual['id']}").status_code == 200


# --- Printers ----------------------------------------------------------------------------------


def test_patch_printer_changes_each_setting_with_admin_scope_only(
    domain_events, org: Org, other_org: Org, enroll
) -> None:
    device = enroll()
    path = f"/v1/printers/{device.printer_id}"
    body = {
        "displayName": "Front desk laser",
        "remarks": "second floor",
        "defaultOptions": {"copies": 2, "duplex": "long-edge"},
        "customPapers": [{"name": "Label 4x6", "width": 1016, "height": 1524}],
    }
    assert_error(_patch(org.reader, path, body), 403, "insufficient_scope")
    assert_error(_patch(other_org.admin, path, body), 404, "not_found")
    assert_error(_patch(org.live_admin, path, body), 404, "not_found")
    assert_error(_patch(org.admin, f"/v1/printers/{UNKNOWN_ID}", body), 404, "not_found")

    before = org.admin.get(path).json()
    updated = _patch(org.admin, path, body)
    assert updated.status_code == 200, updated.text
    printer = updated.json()
    assert {k: printer[k] for k in body} == body
    assert printer["updatedAt"] > before["updatedAt"]
    assert org.admin.get(path).json() == printer
    event = wait_for_event(domain_events, "printer.updated", device.printer_id, lambda d: "displayName" in d["changes"])
    assert event["computerId"] == device.computer_id
    assert event["changes"] == {
        "displayName": {"from": "Lab printer", "to": "Front desk laser"},
        "defaultOptions": {"from": {}, "to": {"copies": 2, "duplex": "long-edge"}},
        "customPapers": {"from": [], "to": body["customPapers"]},
        "remarks": {"from": None, "to": "second floor"},
    }

    # `remarks` null clears it; an unchanged value changes nothing.
    cleared = _patch(org.admin, path, {"remarks": None, "displayName": "Front desk laser"}).json()
    assert (cleared["remarks"], cleared["displayName"]) == (None, "Front desk laser")
    event = wait_for_event(domain_events, "printer.updated", device.printer_id, lambda d: "remarks" in d["changes"]
                   and d["changes"]["remarks"]["to"] is None)  # fmt: skip
    assert event["changes"] == {"remarks": {"from": "second floor", "to": None}}

    # `customPapers` replaces the whole list.
    replaced = _patch(org.admin, path, {"customPapers": [{"name": "Receipt", "width": 800, "height": 2000}]}).json()
    assert replaced["customPapers"] == [{"name": "Receipt", "width": 800, "height": 2000}]
    assert _patch(org.admin, path, {"customPapers": []}).json()["customPapers"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"customPapers": [{"name": f"P{i}", "width": 100, "height": 100} for i in range(51)]},
        {"customPapers": [{"name": "P", "width": 0, "height": 100}]},
        {"customPapers": [{"name": "P", "width": 100, "height": -5}]},
        {"customPapers": [{"name": "P", "width": 100.5, "height": 100}]},
        {"customPapers": [{"name": "", "width": 100, "height": 100}]},
        {"customPapers": [{"name": "P", "width": 100, "height": 100}, {"name": "P", "width": 200, "height": 200}]},
        {"customPapers": [{"name": "P", "width": 100}]},
        {"customPapers": [{"name": "P", "width": 100, "height": 100, "depth": 1}]},
        {"customPapers": {"name": "P"}},
        {"defaultOptions": {"staple": True}},
        {"defaultOptions": {"copies": 0}},
        {"defaultOptions": {"duplex": "both"}},
        {"defaultOptions": []},
        {"displayName": ""},
        {"displayName": None},
        {"enabled": "yes"},
        {"remarks": 5},
        {"capabilities": {}},
    ],
)
def test_patch_printer_rejects_invalid_settings(org: Org, enroll, body: dict) -> None:
    device = enroll()
    path = f"/v1/printers/{device.printer_id}"
    before = org.admin.get(path).json()
    assert_error(_patch(org.admin, path, body), 400, "invalid_request")
    assert org.admin.get(path).json() == before


def test_fifty_custom_papers_are_accepted(org: Org, enroll) -> None:
    device = enroll()
    papers = [{"name": f"P{i}", "width": 100 + i, "height": 200} for i in range(50)]
    response = _patch(org.admin, f"/v1/printers/{device.printer_id}", {"customPapers": papers})
    assert response.status_code == 200 and response.json()["customPapers"] == papers


def test_a_custom_paper_is_usable_as_the_paper_option_and_enabled_is_the_live_switch(
    domain_events, org: Org, enroll
) -> None:
    device = enroll()
    path = f"/v1/printers/{device.printer_id}"
    without = wait_for_state(
        org.admin, submit(org.admin, device.printer_id, options={"paper": "Label 4x6"})["id"], "done"
    )
    assert "paper" not in without["options"] and "paper ignored" in without["stateMessage"]

    _patch(org.admin, path, {"customPapers": [{"name": "Label 4x6", "width": 1016, "height": 1524}]})
    job = wait_for_state(org.admin, submit(org.admin, device.printer_id, options={"paper": "Label 4x6"})["id"], "done")
    assert job["options"]["paper"] == "Label 4x6" and job["stateMessage"] is None

    assert _patch(org.admin, path, {"enabled": False}).json()["enabled"] is False
    refused = org.admin.post(
        "/v1/printjobs",
        json={"printerId": device.printer_id, "title": "t", "contentType": "raw_base64", "content": "AA=="},
    )
    assert_error(refused, 422, "printer_disabled")
    disabled = wait_for_event(domain_events, "printer.updated", device.printer_id, lambda d: "enabled" in d["changes"])
    assert disabled["changes"] == {"enabled": {"from": True, "to": False}}
    assert _patch(org.admin, path, {"enabled": True}).json()["enabled"] is True


def test_agent_reports_move_printer_states_and_emit_their_events(
    lifecycle_stack, domain_events, org: Org, enroll
) -> None:
    device = enroll()
    added = wait_for_event(domain_events, "printer.added", device.printer_id)
    assert added == {
        "id": device.printer_id, "computerId": device.computer_id, "name": "lab", "displayName": "Lab printer",
        "state": "online", "stateReasons": [], "stateDetail": "",
    }  # fmt: skip
    device.agent.disconnect()
    offline = wait_for_event(domain_events, "printer.offline", device.printer_id)
    assert (offline["stateDetail"], offline["stateReasons"]) == ("Computer is offline", [])
    device.agent.connect(lifecycle_stack.agent_gateway_url)
    online = wait_for_event(domain_events, "printer.online", device.printer_id)
    assert online["state"] == "online"
    assert printer_of(org.admin, device.computer_id)["state"] == "online"
