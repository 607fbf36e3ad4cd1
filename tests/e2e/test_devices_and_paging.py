"""Computers and printers with every field of the spec, and the paging rules on list endpoints."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.client import PDF_BASE64, assert_error

COMPUTER_FIELDS = {
    "id", "name", "hostname", "os", "osVersion", "arch", "agentVersion", "mode", "state", "createdAt", "lastSeenAt",
}  # fmt: skip
PRINTER_FIELDS = {
    "id", "computerId", "name", "osName", "description", "displayName", "remarks", "enabled", "isDefault", "state",
    "stateReasons", "stateDetail", "capabilities", "defaultOptions", "customPapers", "createdAt", "updatedAt",
}  # fmt: skip
CAPABILITY_FIELDS = {
    "papers", "bins", "dpis", "medias", "duplex", "color", "collate", "copies", "nup", "extent", "printrate",
    "supports_custom_paper_size",
}  # fmt: skip


def test_the_virtual_computer_is_online_with_every_field(client: httpx.Client, virtual_printers: dict) -> None:
    computers = client.get("/v1/computers").json()["data"]

    assert len(computers) == 1
    computer = computers[0]
    assert set(computer) >= COMPUTER_FIELDS
    assert computer["mode"] == "test" and computer["state"] == "online"
    fetched = client.get(f"/v1/computers/{computer['id']}").json()
    # lastSeenAt moves with the agent's heartbeats; everything else is the same resource.
    assert {k: v for k, v in fetched.items() if k != "lastSeenAt"} == {
        k: v for k, v in computer.items() if k != "lastSeenAt"
    }


def test_printers_carry_every_field_and_capability(client: httpx.Client, virtual_printers: dict) -> None:
    for printer in virtual_printers.values():
        assert set(printer) >= PRINTER_FIELDS, printer["name"]
        assert (printer["state"], printer["stateReasons"], printer["stateDetail"]) == ("online", [], ""), printer[
            "name"
        ]
        assert set(printer["capabilities"]) >= CAPABILITY_FIELDS, printer["name"]
    label = virtual_printers["virtual-label"]["capabilities"]
    assert any(size[1] is None for size in label["papers"].values()), "a roll of unbounded length"
    office = virtual_printers["virtual-office"]
    assert office["capabilities"]["duplex"] and office["capabilities"]["color"]
    assert client.get(f"/v1/printers/{office['id']}").json()["capabilities"] == office["capabilities"]


def test_printers_of_a_computer(client: httpx.Client, virtual_printers: dict) -> None:
    computer_id = virtual_printers["virtual-office"]["computerId"]
    page = client.get(f"/v1/computers/{computer_id}/printers").json()
    assert {p["name"] for p in page["data"]} == set(virtual_printers)
    assert_error(client.get("/v1/computers/01900000-0000-7000-8000-000000000000/printers"), 404, "not_found")


@pytest.fixture(scope="module")
def five_jobs(client: httpx.Client, virtual_printers: dict) -> list[str]:
    printer_id = virtual_printers["virtual-windows"]["id"]
    ids = []
    for n in range(5):
        response = client.post(
            "/v1/printjobs",
            json={
                "printerId": printer_id,
                "title": f"page test {n}",
                "contentType": "pdf_base64",
                "content": PDF_BASE64,
            },
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    return ids


def test_paging_walks_every_item_once_in_both_directions(client: httpx.Client, five_jobs: list[str]) -> None:
    printer_filter = client.get(f"/v1/printjobs/{five_jobs[0]}").json()["printerId"]
    for direction, expected in (("asc", five_jobs), ("desc", list(reversed(five_jobs)))):
        seen: list[str] = []
        params: dict[str, str | int] = {"limit": 2, "dir": direction, "printerId": printer_filter}
        while True:
            page = client.get("/v1/printjobs", params=params).json()
            seen += [j["id"] for j in page["data"]]
            assert page["nextCursor"] == page["data"][-1]["id"], "the last item's id, even on the final page"
            if not page["hasMore"]:
                break
            params["after"] = page["nextCursor"]
        assert seen == expected, direction


def test_an_empty_page_echoes_after(client: httpx.Client, five_jobs: list[str]) -> None:
    page = client.get("/v1/printjobs", params={"after": five_jobs[-1], "dir": "asc", "limit": 100}).json()
    later = [j for j in page["data"] if j["id"] > five_jobs[-1]]
    assert later == page["data"]
    if not page["data"]:
        assert page == {"data": [], "hasMore": False, "nextCursor": five_jobs[-1]}
    newest = page["data"][-1]["id"] if page["data"] else five_jobs[-1]
    empty = client.get("/v1/printjobs", params={"after": newest, "dir": "asc"}).json()
    assert empty == {"data": [], "hasMore": False, "nextCursor": newest}


def test_default_limit_is_25_and_order_newest_first(client: httpx.Client, five_jobs: list[str]) -> None:
    page = client.get("/v1/printjobs").json()
    ids = [j["id"] for j in page["data"]]
    assert len(ids) <= 25
    assert ids == sorted(ids, reverse=True)


@pytest.mark.parametrize(
    "params",
    [{"after": ""}, {"limit": "0"}, {"limit": "101"}, {"limit": "ten"}, {"dir": "up"}, {"after": "not-a-cursor"}],
)
@pytest.mark.parametrize("path", ["/v1/printjobs", "/v1/printers", "/v1/computers"])
def test_bad_paging_parameters_are_rejected(client: httpx.Client, path: str, params: dict) -> None:
    assert_error(client.get(path, params=params), 400, "invalid_request")
