"""A long base64 `content` is set aside from the body before parsing; every answer is the one a
whole parse gives."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.api_gateway.domain.idempotency import fingerprint
from printcloud.api_gateway.transport.set_aside import MIN_SET_ASIDE_CHARS, set_aside_long_string

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

PRINTER = "018f0000-0000-7000-8000-0000000000a1"
DOCUMENT = bytes(range(256)) * (MIN_SET_ASIDE_CHARS // 128)  # base64 with + and /, twice the threshold
CONTENT = base64.b64encode(DOCUMENT).decode()


@pytest.fixture
async def auth(tenant: Tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}", "Content-Type": "application/json"}


def _body(**fields: object) -> dict[str, object]:
    return {"printerId": PRINTER, "title": "Label", "contentType": "raw_base64", "content": CONTENT, **fields}


def test_the_long_string_is_cut_out_as_a_view_of_the_body() -> None:
    body = bytearray(json.dumps(_body()).encode())
    aside = set_aside_long_string(body)
    assert aside is not None
    assert aside.value.tobytes() == CONTENT.encode()
    assert json.loads(aside.rest)["content"] == aside.stand_in
    assert json.loads(aside.rest)["title"] == "Label"


@pytest.mark.parametrize(
    "text",
    [
        '{"content": "' + "A" * (MIN_SET_ASIDE_CHARS - 1) + '"}',  # too short to matter
        '{"content": "\\"' + "A" * MIN_SET_ASIDE_CHARS + '"}',  # the quote before the run is escaped
        '{"content": "' + "A/" * MIN_SET_ASIDE_CHARS + "\\/" + '"}',  # an escape inside: not one run
    ],
)
def test_nothing_is_set_aside_unless_the_run_is_a_whole_unescaped_string(text: str) -> None:
    aside = set_aside_long_string(bytearray(text.encode()))
    if aside is not None:
        assert json.loads(aside.rest).get("content") != aside.stand_in


def test_a_set_aside_content_has_the_fingerprint_of_its_text() -> None:
    body = bytearray(json.dumps(_body()).encode())
    aside = set_aside_long_string(body)
    assert aside is not None
    rest = json.loads(aside.rest)
    assert fingerprint("test", rest, aside.value) == fingerprint("test", _body())
    assert fingerprint("test", rest, aside.value) != fingerprint("live", _body())


async def test_a_long_document_is_decoded_from_the_body_itself(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    response = await client.post("/v1/printjobs", headers=auth, content=json.dumps(_body()))
    assert response.status_code == 201, response.text
    assert services.jobs.documents[-1] == bytearray(DOCUMENT)
    assert services.jobs.requests[-1].title == "Label"


async def test_escaped_slashes_take_the_whole_parse_to_the_same_document(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    text = json.dumps(_body()).replace("/", "\\/")  # as PHP's json_encode writes it
    response = await client.post("/v1/printjobs", headers=auth, content=text)
    assert response.status_code == 201, response.text
    assert services.jobs.documents[-1] == bytearray(DOCUMENT)


async def test_a_later_duplicate_content_wins_as_in_a_whole_parse(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    text = json.dumps(_body())[:-1] + ', "content": "' + base64.b64encode(b"second").decode() + '"}'
    response = await client.post("/v1/printjobs", headers=auth, content=text)
    assert response.status_code == 201, response.text
    assert services.jobs.documents[-1] == bytearray(b"second")


async def test_a_long_string_in_another_field_is_judged_by_that_field(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    response = await client.post("/v1/printjobs", headers=auth, content=json.dumps(_body(title=CONTENT)))
    error = assert_error(response, 400, "invalid_request")
    assert "title" in error["message"]


async def test_a_long_url_content_is_forwarded_as_text(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    url = "https" + "A" * MIN_SET_ASIDE_CHARS
    response = await client.post(
        "/v1/printjobs", headers=auth, content=json.dumps(_body(contentType="raw_uri", content=url))
    )
    assert response.status_code == 201, response.text  # the URL's own rules are the jobs service's
    assert services.jobs.requests[-1].url == url


@pytest.mark.parametrize(
    "tail",
    ['"title": }', '"title": "unterminated'],
)
async def test_broken_json_around_a_long_string_names_the_whole_bodys_error(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, tail: str
) -> None:
    text = '{"content": "' + CONTENT + '", ' + tail
    error = assert_error(await client.post("/v1/printjobs", headers=auth, content=text), 400, "invalid_request")
    try:
        json.loads(text)
    except json.JSONDecodeError as whole:
        assert f"line {whole.lineno} column {whole.colno}" in error["message"]
