"""Properties over every endpoint the OpenAPI document lists, and over the agent protocol: no input
makes a gateway answer 5xx, leave the error envelope, or drop an agent without a close code.

Values are drawn to hurt: NUL characters, unpaired surrogates, numbers of hundreds of digits,
dates at the ends of the calendar, deep nesting, and the names the endpoints really take.
"""

from __future__ import annotations

import contextlib
import json
import string
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from printcloud.devstack.stack import Stack
from tests.e2e.client import api
from tests.e2e.tenants import create_key, create_org

METHODS = ("get", "post", "put", "patch", "delete")
# Dates past either end of what datetime can hold after a zone shift, and other near misses.
HOSTILE_DATES = [
    "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00",
    "+002026-01-01T00:00:00Z", "2026-01-01T00:00:00.0000000000000000001Z",
]  # fmt: skip
hostile_text = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=()), max_size=30),  # surrogates and NUL included
    st.sampled_from(["\x00", "\ud800", "a\udfffb", "9" * 400, "-1", "0", "1e999", "NaN", "null", *HOSTILE_DATES]),
    st.uuids().map(str),
)
scalars = st.none() | st.booleans() | st.integers(-(10**40), 10**40) | st.floats(allow_nan=False) | hostile_text
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3), max_leaves=10
)
# What a header can carry on the wire (no line breaks, no surrounding blanks).
header_text = st.text(alphabet=string.printable.strip("\r\n\x0b\x0c"), max_size=300).map(lambda s: s.strip(" \t"))


def _wire(value: str) -> str:
    """`value` percent-encoded as a client puts any text in a URL; an unpaired surrogate becomes the
    bytes it would have in UTF-8, which a server must then refuse as invalid."""
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def _body_names(document: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    """The top-level field names of an operation's JSON body, when the document names them (in
    every form of a `oneOf` body)."""
    schemas = document["components"]["schemas"]

    def names(schema: dict[str, Any]) -> list[str]:
        ref = schema.get("$ref", "")
        if ref.startswith("#/components/schemas/"):
            schema = schemas[ref.rsplit("/", 1)[1]]
        found = list(schema.get("properties", {}))
        for form in schema.get("oneOf", []):
            found += [name for name in names(form) if name not in found]
        return found

    return names(operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}))


def _assert_envelope(response: httpx.Response) -> None:
    assert response.status_code < 500, f"{response.request.method} {response.request.url}: {response.text[:500]}"
    if response.status_code < 400:
        return
    body = response.json()
    assert set(body) == {"error"}, body
    assert {"code", "message", "request_id"} <= set(body["error"]), body
    assert body["error"]["request_id"] == response.headers["x-request-id"]


@pytest.fixture(scope="module")
def hostile_client(stack: Stack) -> httpx.Client:
    org_id = create_org(stack, "Hostile")
    return api(stack.api_url, create_key(stack, org_id, "test", "read,print,admin"))


def test_no_query_body_or_header_on_any_endpoint_answers_5xx(hostile_client: httpx.Client) -> None:
    document = hostile_client.get("/v1/openapi.json").json()
    operations = _operations(document)
    assert len(operations) >= 15, "the document lists the API's operations"
    known_ids = [p["id"] for p in hostile_client.get("/v1/printers").json()["data"]]

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def any_request(data: st.DataObject) -> None:
        method, path, operation = data.draw(st.sampled_from(operations), label="operation")
        parameters = operation.get("parameters", [])
        for parameter in (p for p in parameters if p["in"] == "path"):
            value = data.draw(st.sampled_from(known_ids) | hostile_text, label=parameter["name"])
            path = path.replace("{" + parameter["name"] + "}", _wire(value))
        query_names = [p["name"] for p in parameters if p["in"] == "query"] + ["unknown"]
        query = data.draw(st.dictionaries(st.sampled_from(query_names), hostile_text, max_size=3), label="query")
        if query:
            path += "?" + "&".join(f"{name}={_wire(value)}" for name, value in query.items())
        headers = {"Idempotency-Key": data.draw(header_text)} if data.draw(st.booleans()) else {}
        content = None
        if method in ("POST", "PUT", "PATCH"):
            names = st.sampled_from(_body_names(document, operation) or ["x"]) | hostile_text
            body = data.draw(st.dictionaries(names, json_values, max_size=6) | json_values, label="body")
            content = json.dumps(body)
            headers["Content-Type"] = "application/json"
        _assert_envelope(hostile_client.request(method, path, content=content, headers=headers))

    any_request()


@contextlib.contextmanager
def _agent(stack: Stack, hostile_client: httpx.Client, credential: list[str]) -> Iterator[ClientConnection]:
    """A connection that has said hello; the credential is enrolled once and kept in `credential`."""
    if not credential:
        credential.append(hostile_client.post("/v1/agent/enroll", json={"hostname": "prop"}).json()["credential"])
    with connect(
        stack.agent_gateway_url.replace("http://", "ws://") + "/agent/v1/ws",
        additional_headers={"Authorization": f"Bearer {credential[0]}"},
        subprotocols=["printcloud.agent.v1"],
        max_size=None,
    ) as ws:
        computer = {"hostname": "prop", "os": "linux", "osVersion": "6", "arch": "x86_64", "agentVersion": "t"}
        ws.send(json.dumps({"type": "hello", "protocolVersion": 1, "computer": computer, "printers": []}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        yield ws


def test_no_agent_message_drops_the_socket_without_a_close_code(stack: Stack, hostile_client: httpx.Client) -> None:
    credential: list[str] = []
    message_types = st.sampled_from(["hello", "job.state", "printers", "pong", "x"]) | hostile_text
    messages = st.dictionaries(
        st.sampled_from(["type", "jobId", "state", "message", "printers"]), json_values
    ) | st.fixed_dictionaries({"type": message_types}, optional={"jobId": hostile_text, "printers": json_values})

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(message=messages | json_values, raw=st.booleans())
    def any_message(message: Any, raw: bool) -> None:
        with _agent(stack, hostile_client, credential) as ws:
            ws.send(json.dumps(message) if not raw else json.dumps(message)[:-1])
            try:
                ws.send(json.dumps({"type": "printers", "printers": []}))
                ws.recv(timeout=0.3)
            except TimeoutError:
                return  # still open after a while: the message was taken or ignored
            except ConnectionClosed:
                pass
            assert ws.close_code is not None and (4400 <= ws.close_code < 4500 or ws.close_code == 1009), (
                ws.close_code,
                ws.close_reason,
            )

    any_message()
