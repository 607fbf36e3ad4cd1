"""The OpenAPI document as a contract: every reference resolves, every operation names its answers
and errors, links lead to operations that exist, and the body rules say what the API checks.

What the running system sends is checked against the document by tests/contract (schemathesis)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from schemathesis.core.result import Ok

from printcloud.api_gateway.transport.schemas import BASE64, HTTP_URL, NON_BLANK, PAGES, PDF_BASE64

METHODS = {"get", "post", "patch", "delete", "put"}


@pytest.fixture(scope="module")
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    loaded: dict[str, Any] = (await client.get("/v1/openapi.json")).json()
    return loaded


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield method, path, operation


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "$ref":
                yield inner
            else:
                yield from _refs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _refs(inner)


def _resolve(document: dict[str, Any], ref: str) -> dict[str, Any]:
    schema: dict[str, Any] = document["components"]["schemas"][ref.removeprefix("#/components/schemas/")]
    return schema


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    refs = set(_refs(document))
    assert refs, "the document uses components"
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in document["components"]["schemas"], ref
    assert "$defs" not in str(document)
    # The document loads as schemathesis reads it, references and links included.
    schema = schemathesis.openapi.from_dict(document)
    loaded = [result for result in schema.get_all_operations() if isinstance(result, Ok)]
    assert len(loaded) == len(list(_operations(document)))


def test_every_operation_documents_its_success_and_errors_with_the_envelope(document: dict[str, Any]) -> None:
    error = {"$ref": "#/components/schemas/Error"}
    for method, path, operation in _operations(document):
        responses = operation["responses"]
        successes = [status for status in responses if status.startswith("2")]
        assert len(successes) == 1, (method, path, successes)
        assert {"400", "401", "403", "408", "429", "431", "5XX"} <= responses.keys(), (method, path)
        if "{id}" in path:
            assert "404" in responses, (method, path)
        for status, response in responses.items():
            if not status.startswith("2"):
                assert response["content"]["application/json"]["schema"] == error, (method, path, status)
        success = responses[successes[0]]
        if successes[0] != "204" and "application/json" in success["content"]:
            ref = success["content"]["application/json"]["schema"]["$ref"]
            assert _resolve(document, ref)["additionalProperties"] is False, (method, path)
        elif successes[0] != "204":  # a stored file
            binary = {"type": "string", "format": "binary"}
            assert [media["schema"] for media in success["content"].values()] == [binary, binary], (method, path)
        assert "default" not in responses, (method, path)


def test_links_lead_to_operations_that_exist(document: dict[str, Any]) -> None:
    ids = {operation["operationId"] for _, _, operation in _operations(document)}
    assert "get_print_job" in ids and "create_print_job" in ids
    targets = {
        link["operationId"]
        for _, _, operation in _operations(document)
        for response in operation["responses"].values()
        for link in response.get("links", {}).values()
    }
    assert targets <= ids
    created = document["paths"]["/v1/printjobs"]["post"]["responses"]["201"]["links"]
    assert created["GetPrintJob"] == {"operationId": "get_print_job", "parameters": {"path.id": "$response.body#/id"}}
    assert {"cancel_print_job", "list_print_job_events", "update_printer", "ping_webhook", "get_computer"} <= targets


def test_a_print_job_is_one_of_the_spec_forms(document: dict[str, Any]) -> None:
    create = document["paths"]["/v1/printjobs"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PrintJobCreate"
    }
    forms = [_resolve(document, form["$ref"]) for form in document["components"]["schemas"]["PrintJobCreate"]["oneOf"]]
    assert [sorted(form["required"]) for form in forms] == [
        ["content", "contentType", "printerId", "title"],
        ["content", "contentType", "printerId", "title"],
        ["content", "contentType", "printerId", "title"],
        ["printerId", "reprintOf", "title"],
    ]
    assert all(form["additionalProperties"] is False for form in forms)
    assert "authentication" in forms[0]["properties"] and "authentication" not in forms[1]["properties"]
    assert "pass" in document["components"]["schemas"]["BasicAuthCredentials"]["properties"]


def test_enums_and_bounds(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert schemas["PrintJob"]["properties"]["state"]["enum"][:2] == ["queued", "sent"]
    events = schemas["WebhookCreate"]["properties"]["events"]
    assert (
        events["minItems"] == 1 and "printjob.done" in events["items"]["enum"] and "ping" not in events["items"]["enum"]
    )
    limit = next(p for p in document["paths"]["/v1/printers"]["get"]["parameters"] if p["name"] == "limit")
    assert limit["schema"] | {"title": ""} == {"type": "integer", "minimum": 1, "maximum": 100, "title": ""}
    qty = schemas["PdfDocument"]["properties"]["qty"]
    assert (qty["minimum"], qty["maximum"]) == (1, 100)
    # pydantic's own names for bounds mean nothing to a JSON Schema reader.
    assert not re.search(r'"(ge|le|gt|lt)":', json.dumps(document))
    assert schemas["PrintOptions"]["properties"]["copies"] | {"title": ""} == {
        "type": "integer", "minimum": 1, "maximum": 999, "title": ""
    }  # fmt: skip


@pytest.mark.parametrize(
    ("pattern", "accepted", "refused"),
    [
        (BASE64, ["QUJD", "QUI=", "QQ==", "QUJDRA=="], ["", "QUJ", "QQ=", "QU JD", "QQ==QQ==", "Q-_D"]),
        (PDF_BASE64, ["JVBERi0=", "JVBERi0xLjQK"], ["QUJD", "JVBERi4=", "JVBER", ""]),
        (PAGES, ["1", "1-3,5", " 2-4 ", "01,2"], ["", "0", "1-", "a", "1,,2", "-1"]),
        (NON_BLANK, ["a", " a "], ["", "   ", "\t", "\x00", " \x00a"]),
        (HTTP_URL, ["https://example.com/a?b=c", "HTTP://host:8080"], ["ftp://x", "https://", "https://a b"]),
    ],
)
def test_body_patterns(pattern: str, accepted: list[str], refused: list[str]) -> None:
    """The patterns as a JSON Schema validator reads them: a search, so anchored on both ends."""
    compiled = re.compile(pattern)
    assert [value for value in accepted if not compiled.search(value)] == []
    assert [value for value in refused if compiled.search(value)] == []
