from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import MAX_DOCUMENT_BYTES

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

PRINTER = "018f0000-0000-7000-8000-0000000000a1"


@pytest.fixture
async def auth(tenant: Tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}"}


def document(content: str, content_type: str = "pdf_base64", **extra: object) -> dict[str, object]:
    return {"printerId": PRINTER, "title": "Invoice", "contentType": content_type, "content": content, **extra}


async def test_base64_job_is_decoded_and_forwarded_with_defaults(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services
) -> None:
    pdf = b"%PDF-1.7 hello"
    response = await client.post("/v1/printjobs", headers=auth, json=document(base64.b64encode(pdf).decode()))
    assert response.status_code == 201, response.text
    assert response.json()["state"] == "queued"
    sent = services.jobs.requests[-1]
    assert services.jobs.documents[-1] == bytearray(pdf)
    assert (sent.scope.organization_id, sent.scope.mode) == (tenant.organization_id, "test")
    assert (sent.qty, sent.expire_after, sent.source, json.loads(sent.options_json)) == (1, 86400, "api", {})
    assert sent.request_id == response.headers["x-request-id"]


async def test_url_job_carries_url_options_and_credentials(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    body = document(
        "https://files.example.com/a.pdf",
        "pdf_uri",
        qty=3,
        expireAfter=60,
        source="erp",
        options={"duplex": "long-edge"},
        authentication={"type": "BasicAuth", "credentials": {"user": "u", "pass": "p"}},
    )
    assert (await client.post("/v1/printjobs", headers=auth, json=body)).status_code == 201
    sent = services.jobs.requests[-1]
    assert sent.url == "https://files.example.com/a.pdf"
    assert (sent.qty, sent.expire_after, sent.source) == (3, 60, "erp")
    assert json.loads(sent.options_json) == {"duplex": "long-edge"}
    assert (sent.authentication.user, getattr(sent.authentication, "pass")) == ("u", "p")


async def test_reprint_form(client: httpx.AsyncClient, auth: dict[str, str], services: Services) -> None:
    original = "018f0000-0000-7000-8000-0000000000b2"
    body = {"printerId": PRINTER, "title": "Again", "reprintOf": original}
    assert (await client.post("/v1/printjobs", headers=auth, json=body)).status_code == 201
    assert services.jobs.requests[-1].reprint_of == original


@pytest.mark.parametrize(
    "content",
    [
        "-_8=",  # URL-safe alphabet
        "QQ",  # missing padding
        "QQ=",  # wrong padding
        "QUJD\nREVG",  # embedded newline
        "QQ== ",  # trailing space
        "QQ==QQ==",  # data after padding
    ],
)
async def test_base64_must_be_strict_standard(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, content: str
) -> None:
    response = await client.post("/v1/printjobs", headers=auth, json=document(content, "raw_base64"))
    assert "`content`" in assert_error(response, 400, "invalid_request")["message"]


async def test_document_over_25_mb_is_413(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, services: Services
) -> None:
    before = len(services.jobs.requests)
    content = base64.b64encode(b"\0" * (MAX_DOCUMENT_BYTES + 1)).decode()
    response = await client.post("/v1/printjobs", headers=auth, json=document(content, "raw_base64"))
    assert_error(response, 413, "content_too_large")
    assert len(services.jobs.requests) == before


async def test_padding_inside_a_long_document_is_invalid(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    # Long enough to be decoded in slices, with padding where one slice ends and the next begins.
    first = base64.b64encode(b"x" * (3 * 2**18 - 1)).decode()
    assert len(first) == 2**20 and first.endswith("=")
    content = first + base64.b64encode(b"abc").decode()
    response = await client.post("/v1/printjobs", headers=auth, json=document(content, "raw_base64"))
    assert_error(response, 400, "invalid_request")


async def test_a_body_declared_over_40_mb_is_413_before_it_is_read(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    headers = {**auth, "content-type": "application/json", "content-length": str(40 * 2**20 + 1)}
    response = await client.post("/v1/printjobs", headers=headers, content=b"{}")
    assert_error(response, 413, "content_too_large")


async def test_printer_id_that_is_not_a_uuid_is_404(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    body = {**document("QQ=="), "printerId": "laser-1"}
    assert_error(await client.post("/v1/printjobs", headers=auth, json=body), 404, "not_found")


async def test_service_errors_keep_their_code(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, services: Services
) -> None:
    body = document("JVBERi0=")
    services.jobs.recorder.fail_next("CreateJob", ApiError("printer_disabled", "The printer is not live."))
    assert_error(await client.post("/v1/printjobs", headers=auth, json=body), 422, "printer_disabled")


async def test_job_reads_and_cancel(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services, assert_error: AssertError
) -> None:
    job = services.jobs.add_job(tenant.organization_id, "test", PRINTER)
    got = await client.get(f"/v1/printjobs/{job.id}", headers=auth)
    assert got.status_code == 200 and got.json()["id"] == job.id
    events = await client.get(f"/v1/printjobs/{job.id}/events", headers=auth)
    assert list(events.json()) == ["data"] and events.json()["data"][0]["actor"] == "api"
    cancelled = await client.post(f"/v1/printjobs/{job.id}/cancel", headers=auth)
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    again = await client.post(f"/v1/printjobs/{job.id}/cancel", headers=auth)
    assert_error(again, 409, "not_cancellable")
    live_key = {"Authorization": f"Bearer {await tenant.make_key(mode='live')}"}
    assert_error(await client.get(f"/v1/printjobs/{job.id}", headers=live_key), 404, "not_found")


async def test_list_filters_are_forwarded(client: httpx.AsyncClient, auth: dict[str, str], services: Services) -> None:
    computer = "018f0000-0000-7000-8000-0000000000c3"
    query = (
        f"?limit=10&dir=asc&printerId={PRINTER}&computerId={computer}&state=done"
        "&createdFrom=2030-01-01T01:00:00%2B01:00&createdTo=2030-01-02T00:00:00Z"
    )
    response = await client.get("/v1/printjobs" + query, headers=auth)
    assert response.status_code == 200
    sent = services.jobs.requests[-1]
    assert (sent.page.limit, sent.page.dir, sent.page.HasField("after")) == (10, "asc", False)
    assert (sent.filters.printer_id, sent.filters.computer_id, sent.filters.state) == (PRINTER, computer, "done")
    assert sent.filters.created_from == "2030-01-01T00:00:00.000Z"
    assert sent.filters.created_to == "2030-01-02T00:00:00.000Z"


async def test_empty_first_page_has_null_cursor(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/v1/printjobs", headers=auth)
    assert response.json() == {"data": [], "hasMore": False, "nextCursor": None}


async def test_page_of_jobs_and_cursor(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services
) -> None:
    jobs = [services.jobs.add_job(tenant.organization_id, "test", PRINTER) for _ in range(3)]
    response = await client.get("/v1/printjobs?limit=2", headers=auth)
    body = response.json()
    assert [j["id"] for j in body["data"]] == [jobs[2].id, jobs[1].id], "newest first"
    assert body["hasMore"] is True and body["nextCursor"] == jobs[1].id
    rest = (await client.get(f"/v1/printjobs?limit=2&after={jobs[1].id}", headers=auth)).json()
    assert [j["id"] for j in rest["data"]] == [jobs[0].id] and rest["hasMore"] is False


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=abc", "limit"),
        ("after=", "after"),
        ("after=not-a-cursor", "after"),
        ("dir=sideways", "dir"),
        ("state=lost", "state"),
        ("printerId=x", "printerId"),
        ("createdFrom=yesterday", "createdFrom"),
        ("createdTo=2030-01-01T00:00:00", "createdTo"),
        ("colour=red", "colour"),
    ],
)
async def test_bad_list_parameters_are_400(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, query: str, name: str
) -> None:
    error = assert_error(await client.get(f"/v1/printjobs?{query}", headers=auth), 400, "invalid_request")
    assert f"`{name}`" in error["message"]


async def test_printer_jobs_check_the_printer_first(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services, assert_error: AssertError
) -> None:
    computer = services.devices.add_computer(tenant.organization_id, "test")
    printer = services.devices.add_printer(computer)
    job = services.jobs.add_job(tenant.organization_id, "test", printer.id)
    services.jobs.add_job(tenant.organization_id, "test", PRINTER)
    response = await client.get(f"/v1/printers/{printer.id}/printjobs", headers=auth)
    assert [j["id"] for j in response.json()["data"]] == [job.id]
    live_key = {"Authorization": f"Bearer {await tenant.make_key(mode='live')}"}
    assert_error(await client.get(f"/v1/printers/{printer.id}/printjobs", headers=live_key), 404, "not_found")


async def test_bodies_are_utf8_with_an_optional_byte_order_mark(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    body = json.dumps(document(base64.b64encode(b"%PDF-1.7").decode()))
    headers = {**auth, "content-type": "application/json"}
    with_mark = await client.post("/v1/printjobs", headers=headers, content=b"\xef\xbb\xbf" + body.encode())
    assert with_mark.status_code == 201, with_mark.text
    utf16 = await client.post("/v1/printjobs", headers=headers, content=body.encode("utf-16"))
    assert_error(utf16, 400, "invalid_request")


async def test_a_reprint_may_say_its_copies_and_source(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services, assert_error: AssertError
) -> None:
    original = "018f0000-0000-7000-8000-0000000000b3"
    body = {"printerId": PRINTER, "title": "Again", "reprintOf": original, "qty": 2, "source": "dashboard"}
    assert (await client.post("/v1/printjobs", headers=auth, json=body)).status_code == 201
    sent = services.jobs.requests[-1]
    assert (sent.reprint_of, sent.qty, sent.source) == (original, 2, "dashboard")
    extras: list[dict[str, object]] = [{"options": {}}, {"expireAfter": 600}]
    for extra in extras:
        error = assert_error(
            await client.post("/v1/printjobs", headers=auth, json={**body, **extra}), 400, "invalid_request"
        )
        assert "cannot be combined with `reprintOf`" in error["message"]


async def test_jobs_are_listed_by_title_and_a_blank_title_is_refused(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services, assert_error: AssertError
) -> None:
    wanted = services.jobs.add_job(tenant.organization_id, "test", PRINTER, title="Quarterly INVOICE")
    services.jobs.add_job(tenant.organization_id, "test", PRINTER, title="Receipt")
    listed = await client.get("/v1/printjobs", headers=auth, params={"title": " invoice "})
    assert [job["id"] for job in listed.json()["data"]] == [wanted.id]
    assert services.jobs.requests[-1].filters.title_contains == "invoice"
    assert_error(await client.get("/v1/printjobs", headers=auth, params={"title": "  "}), 400, "invalid_request")
    too_long = {"title": "x" * 256}
    assert_error(await client.get("/v1/printjobs", headers=auth, params=too_long), 400, "invalid_request")


async def test_a_jobs_file_is_downloaded_in_its_scope(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services, assert_error: AssertError
) -> None:
    pdf = b"%PDF-1.7 " + bytes(range(256)) * 40  # several chunks of the fake
    job = services.jobs.add_job(tenant.organization_id, "test", PRINTER, data=pdf, title="Café invoice.pdf")
    answer = await client.get(f"/v1/printjobs/{job.id}/file", headers=auth)
    assert answer.status_code == 200 and answer.content == pdf
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.headers["content-length"] == str(len(pdf))
    disposition = answer.headers["content-disposition"]
    assert disposition == "attachment; filename=\"Caf_ invoice.pdf\"; filename*=UTF-8''Caf%C3%A9%20invoice.pdf"
    raw = services.jobs.add_job(tenant.organization_id, "test", PRINTER, data=b"^XA^XZ", content_type="raw_base64")
    assert (await client.get(f"/v1/printjobs/{raw.id}/file", headers=auth)).headers["content-type"] == (
        "application/octet-stream"
    )
    live = {"Authorization": f"Bearer {await tenant.make_key(mode='live')}"}
    assert_error(await client.get(f"/v1/printjobs/{job.id}/file", headers=live), 404, "not_found")
    assert_error(await client.get("/v1/printjobs/nope/file", headers=auth), 404, "not_found")
