"""Bodies built to hurt the gateway: each answers its envelope, never a 500."""

from __future__ import annotations

import httpx
import pytest

from printcloud.api_gateway.transport import bodies


@pytest.fixture
async def auth(tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}", "Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '{"title": ' + "[" * 1000 + "]" * 1000 + "}",
            "The body is not valid JSON: JSON nested deeper than 32 levels.",
        ),
        ('{"options": {"pages": ' + "9" * 5000 + "}}", "The body is not valid JSON: a number has more than 30 digits."),
        ('{"qty": NaN}', "The body is not valid JSON: NaN is not valid JSON."),
    ],
)
async def test_a_body_beyond_the_parser_bounds_is_400(
    client: httpx.AsyncClient, auth, assert_error, body: str, message: str
) -> None:
    error = assert_error(await client.post("/v1/printjobs", content=body, headers=auth), 400, "invalid_request")
    assert error["message"] == message


async def test_a_declared_length_too_long_to_be_a_number_is_413(client: httpx.AsyncClient, auth, assert_error) -> None:
    headers = {**auth, "Content-Length": "9" * 5000}
    assert_error(await client.post("/v1/printjobs", content=b"{}", headers=headers), 413, "content_too_large")


async def test_large_bodies_beyond_the_free_slots_are_refused_with_503(
    client: httpx.AsyncClient, auth, assert_error
) -> None:
    large = b'{"title": "' + b"a" * bodies.LARGE_BODY_BYTES + b'"}'
    held = [bodies.LARGE_BODIES.held() for _ in range(bodies.MAX_CONCURRENT_LARGE_BODIES)]
    for slot in held:
        slot.__enter__()
    try:
        refused = await client.post("/v1/printjobs", content=large, headers=auth)
        small = await client.post("/v1/printjobs", content=b"{}", headers=auth)
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    assert_error(refused, 503, "service_unavailable")
    assert small.status_code == 400, "small bodies never wait for a slot"
    assert (await client.post("/v1/printjobs", content=large, headers=auth)).status_code == 400
