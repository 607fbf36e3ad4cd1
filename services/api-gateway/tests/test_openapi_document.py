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

from printcloud.contracts.options import PAGES
from printcloud.contracts.requests import BASE64, HTTP_URL, PDF_BASE64
from printcloud.contracts.text import NON_BLANK

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
    assert schemas["PrintJob"]["properties"]["state"] == {"$ref": "#/components/schemas/JobState"}
    assert schemas["JobState"]["enum"][:2] == ["queued", "sent"]
    events = schemas["WebhookCreate"]["properties"]["events"]
    assert events["minItems"] == 1 and events["items"] == {"$ref": "#/components/schemas/EventType"}
    assert "printjob.done" in schemas["EventType"]["enum"] and "ping" not in schemas["EventType"]["enum"]
    limit = next(p for p in document["paths"]["/v1/printers"]["get"]["parameters"] if p["name"] == "limit")
    assert limit["schema"] | {"title": ""} == {"type": "integer", "minimum": 1, "maximum": 100, "title": ""}
    qty = schemas["PdfDocument"]["properties"]["qty"]
    assert (qty["minimum"], qty["maximum"]) == (1, 100)
    # pydantic's own names for bounds mean nothing to a JSON Schema reader.
    assert not re.search(r'"(ge|le|gt|lt)":', json.dumps(document))
    assert schemas["PrintOptions"]["properties"]["copies"] | {"description": ""} == {
        "type": "integer", "minimum": 1, "maximum": 999, "description": ""
    }  # fmt: skip


def test_every_list_direction_and_job_state_parameter_names_one_enum(document: dict[str, Any]) -> None:
    """A generated client gets one `SortDirection` and one `JobState`, not one enum per operation."""
    for _, _, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            if parameter["name"] == "dir":
                assert parameter["schema"]["$ref"] == "#/components/schemas/SortDirection"
            if parameter["name"] == "state":
                assert parameter["schema"]["$ref"] == "#/components/schemas/JobState"


def test_representations_are_typed_all_the_way_down(document: dict[str, Any]) -> None:
    """No untyped object where the contract knows the fields: options, capabilities, event data."""
    schemas = document["components"]["schemas"]
    printer = schemas["Printer"]["properties"]
    assert printer["capabilities"] == {"$ref": "#/components/schemas/Capabilities"}
    assert printer["defaultOptions"]["$ref"] == "#/components/schemas/PrintOptions"
    assert schemas["PrintJob"]["properties"]["options"]["$ref"] == "#/components/schemas/PrintOptions"
    assert schemas["PrintOptions"]["additionalProperties"] is False
    assert schemas["Capabilities"]["additionalProperties"] is False
    feed = schemas["Event"]
    assert feed["discriminator"]["propertyName"] == "type"
    assert len(feed["oneOf"]) == len(schemas["EventType"]["enum"])
    assert schemas["PrintJobDoneEvent"]["properties"]["data"] == {"$ref": "#/components/schemas/PrintJob"}
    assert schemas["ErrorDetail"]["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}


def test_every_operation_is_described_for_api_users(document: dict[str, Any]) -> None:
    assert document["info"]["license"]["name"] and document["servers"] and document["tags"]
    tags = {tag["name"] for tag in document["tags"]}
    for method, path, operation in _operations(document):
        assert operation["summary"] and len(operation["description"]) > 80, (method, path)
        assert "Scope" in operation["description"], (method, path)
        assert set(operation["tags"]) <= tags, (method, path)


def test_each_delivery_is_a_webhook_with_its_signature_headers(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert set(document["webhooks"]) == {*schemas["EventType"]["enum"], "ping"}
    for event_type, webhook in document["webhooks"].items():
        headers = {parameter["name"] for parameter in webhook["post"]["parameters"]}
        assert headers == {"webhook-id", "webhook-timestamp", "webhook-signature"}, event_type
        body = _resolve(document, webhook["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"])
        assert body["properties"]["type"]["const"] == event_type


@pytest.mark.parametrize(
    ("pattern", "accepted", "refused"),
    [
        (BASE64, ["QUJD", "QUI=", "QQ==", "QUJDRA=="], ["", "QUJ", "QQ=", "QU JD", "QQ==QQ==", "Q-_D"]),
        (PDF_BASE64, ["JVBERi0=", "JVBERi0xLjQK"], ["QUJD", "JVBERi4=", "JVBER", ""]),
        (PAGES, ["1", "1-3,5", " 2-4 ", "01,2", "1\t,2"], ["", "0", "1-", "a", "1,,2", "-1", "1\v", "1\f", "\u0661"]),
        (NON_BLANK, ["a", " a ", "\u00a0"], ["", "   ", "\t", "\v\f", "\x00", " \x00a"]),
        (HTTP_URL, ["https://example.com/a?b=c", "HTTP://host:8080"], ["ftp://x", "https://", "https://a b"]),
    ],
)
def test_body_patterns(pattern: str, accepted: list[str], refused: list[str]) -> None:
    """The patterns as a JSON Schema validator reads them: a search, so anchored on both ends."""
    compiled = re.compile(pattern)
    assert [value for value in accepted if not compiled.search(value)] == []
    assert [value for value in refused if compiled.search(value)] == []
