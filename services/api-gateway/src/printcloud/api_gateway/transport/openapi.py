"""The OpenAPI document: the reference API users read and SDKs are generated from.

Routes read their bodies by hand (see `bodies`), so their request schemas come from `openapi_extra`
and their responses from `documented`, never from FastAPI's inference. Every schema is generated
from a model: the public representations and the bodies that write them from `printcloud.contracts`,
the other bodies and the query strings from `schemas`. The routes render the JSON from the same
models (`printcloud.contracts.representations`); a test holds it to them, and schemathesis tests
the running stack against the whole document (tests/e2e/contract).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, routing
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, TypeAdapter
from starlette.routing import BaseRoute

from printcloud.api_gateway.transport.schemas import BODY_MODELS
from printcloud.contracts.enums import SortDirection
from printcloud.contracts.errors import STATUS_BY_CODE, Error
from printcloud.contracts.events import DELIVERY_MODELS, EVENT_MODELS, Event, PingEvent
from printcloud.contracts.field_names import public_name
from printcloud.contracts.options import PrintOptions
from printcloud.contracts.resources import Page
from printcloud.contracts.schema import REF_TEMPLATE, component_schemas

# NUL, which the API refuses wherever it appears (printcloud.core.storable_text), stated for every
# string the client sends that has no pattern of its own. (Lone surrogates, refused too, are no
# Unicode text at all, so no JSON Schema string holds one.)
STORABLE_TEXT = "^[^\\u0000]*$"

_HAS_MORE = public_name(Page, lambda page: page.hasMore)
_NEXT_CURSOR = public_name(Page, lambda page: page.nextCursor)

DESCRIPTION = f"""\
PrintCloud prints PDF and raw printer documents on printers attached to computers that run the
PrintCloud agent. Submit a print job to a printer, follow its state through webhooks or the event
feed, and manage computers, printers and webhook endpoints.

**Authentication.** Send an API key as `Authorization: Bearer <key>` (or HTTP Basic with the key
as user name and an empty password). Keys belong to one organization and one mode: `svc_test_...`
keys see only test data and the four virtual printers, `svc_live_...` keys only live data. Each
key has scopes: `read`, `print` (create and cancel jobs) and `admin` (change printers, computers and
webhooks).

**Errors.** Every error answers `{{"error": {{"code", "message", "request_id"}}}}`; `code` is stable
(see `ErrorCode`), `request_id` equals the `X-Request-Id` header. Retry `429` and `5XX` answers and
network errors with growing, jittered waits (honour `Retry-After`), never other `4XX` answers, and
send one `Idempotency-Key` with every try of one `POST /v1/printjobs`.

**Lists** answer `{{data, {_HAS_MORE}, {_NEXT_CURSOR}}}`; pass `{_NEXT_CURSOR}` as `after` for the next page.

**Webhooks.** Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
`webhook-signature`); each event type's body is under `webhooks` below. SDKs and a command-line
tool: docs/clients.md.
"""

TAGS: list[dict[str, str]] = [
    {"name": "print jobs", "description": "Submit documents to a printer, follow and cancel them."},
    {"name": "printers", "description": "Printers reported by agents: capabilities, defaults, custom papers."},
    {"name": "computers", "description": "Computers running the agent, and their printers."},
    {"name": "agents", "description": "Enrolling a computer's agent."},
    {"name": "webhooks", "description": "Endpoints that receive signed deliveries of events, and their logs."},
    {"name": "events", "description": "The event feed: every event of the key's mode, in order."},
    {"name": "account", "description": "The caller's organization, key and usage."},
]

_SERVERS: list[dict[str, Any]] = [
    {"url": "/", "description": "The server that serves this document"},
    {
        "url": "{baseUrl}",
        "description": "A PrintCloud installation",
        "variables": {"baseUrl": {"default": "http://127.0.0.1:8080", "description": "Its address, without /v1"}},
    },
]
LICENSE = {"name": "Proprietary"}

_REQUEST_ID = {
    "X-Request-Id": {"description": "Sent on every response", "required": True, "schema": {"type": "string"}}
}
# The models every document names beyond those routes answer with: request bodies, the error
# envelope, print options (request bodies refer to them by name) and the webhook bodies.
_ALWAYS: tuple[type[BaseModel], ...] = (*BODY_MODELS, Error, PrintOptions, Event, PingEvent, *EVENT_MODELS)
# Filled by `documented` as the route modules are imported: the models the answers refer to.
_ANSWER_MODELS: dict[str, type[BaseModel]] = {}


def _codes_of(status: int) -> str:
    return ", ".join(f"`{code}`" for code, code_status in STATUS_BY_CODE.items() if code_status == status)


# Every operation may answer these: a bad query string, no key, a key without the scope, headers
# too slow (408) or too large (431) for the edge (printcloud.core.http.edge_http), the rate limit, and a
# service-side failure.
COMMON_ERRORS: tuple[int | str, ...] = (400, 401, 403, 408, 429, 431, "5XX")
_ERROR_DESCRIPTIONS: dict[int | str, str] = {
    status: _codes_of(status) for status in sorted(set(STATUS_BY_CODE.values())) if status < 500
}
_ERROR_DESCRIPTIONS[429] += "; `Retry-After` says how many seconds to wait"
_ERROR_DESCRIPTIONS["5XX"] = "A service-side problem (`internal_error`, `service_unavailable`, ...); retry with backoff"
_RETRY_AFTER = {
    "Retry-After": {"description": "Whole seconds to wait before retrying", "schema": {"type": "integer", "minimum": 0}}
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF_TEMPLATE.format(model=name)}


def json_content(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(model.__name__)}}


def json_body(model: type[BaseModel], example: dict[str, Any] | None = None) -> dict[str, Any]:
    """`openapi_extra` for a route that reads `model` with `parse_json_body` rather than a declared body."""
    content = json_content(model)
    if example is not None:
        content["application/json"]["example"] = example
    return {"requestBody": {"required": True, "content": content}}


def documented(
    status: int,
    model: type[BaseModel] | None,
    *errors: int,
    links: dict[str, dict[str, Any]] | None = None,
    headers: dict[str, dict[str, Any]] | None = None,
    description: str = "",
) -> dict[str, Any]:
    """Route decorator arguments: the success `status` with `model` (None: no body), and the error
    statuses beyond `COMMON_ERRORS`, each with the envelope. `links` lead from this answer to the
    operations its ids feed (used by stateful tests, and by readers)."""
    success: dict[str, Any] = {"description": description or "Success", "headers": {**_REQUEST_ID, **(headers or {})}}
    if model is not None:
        _ANSWER_MODELS[model.__name__] = model
        success["content"] = json_content(model)
    if links:
        success["links"] = links
    responses: dict[int | str, dict[str, Any]] = {status: success}
    for error in sorted({*COMMON_ERRORS, *errors}, key=str):
        responses[error] = {
            "description": _ERROR_DESCRIPTIONS[error],
            "headers": {**_REQUEST_ID, **(_RETRY_AFTER if error == 429 else {})},
            "content": json_content(Error),
        }
    return {"status_code": status, "response_model": None, "responses": responses}


def link(operation_id: str, source: str = "$response.body#/id", **extra: Any) -> dict[str, Any]:
    """A link passing the id at `source` as the target operation's path `id`."""
    return {"operationId": operation_id, "parameters": {"path.id": source}, **extra}


def _with_storable_text(schema: object) -> None:
    """Adds `STORABLE_TEXT` to every string schema without a pattern, format, enum or const of its own."""
    if isinstance(schema, list):
        for item in schema:
            _with_storable_text(item)
        return
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string" and not {"pattern", "format", "enum", "const"} & schema.keys():
        schema["pattern"] = STORABLE_TEXT
    for value in schema.values():
        _with_storable_text(value)


def _sent_by_clients(schemas: dict[str, Any]) -> set[str]:
    """The components a request body uses, directly or through others."""
    pending = [model.__name__ for model in BODY_MODELS]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            pending.extend(ref.removeprefix(REF_TEMPLATE.format(model="")) for ref in _refs(schemas[name]))
    return reached


def _refs(schema: object) -> list[str]:
    if isinstance(schema, dict):
        return [schema["$ref"]] if "$ref" in schema else [ref for value in schema.values() for ref in _refs(value)]
    if isinstance(schema, list):
        return [ref for value in schema for ref in _refs(value)]
    return []


def _components(document: dict[str, Any]) -> None:
    """Every schema, named once: FastAPI's own (the 422 it never sends here) are replaced. What
    clients send states that NUL is refused; what the API sends may echo it (in an error message)."""
    schemas = component_schemas([*_ALWAYS, *_ANSWER_MODELS.values()])
    # Named for the query parameters that refer to it (`dir`), which no model holds.
    schemas[SortDirection.__name__] = TypeAdapter(SortDirection).json_schema()
    for name in _sent_by_clients(schemas):
        _with_storable_text(schemas[name])
    document["components"]["schemas"] = schemas
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    _with_storable_text(parameter["schema"])


def _path_ids(document: dict[str, Any]) -> None:
    """Every path id is a UUID; anything else names no resource, which the API answers with 404."""
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    parameter["schema"] = {"type": "string", "format": "uuid"}
                    parameter.setdefault("description", "The resource's id")


def _operations_named(document: dict[str, Any], routes: Sequence[BaseRoute]) -> None:
    """Each operation is named after its route function (`get_print_job`), which links refer to, and
    described by its docstring: the first line is the summary, the rest the description."""
    for route in routing.iter_route_contexts(routes):
        original = route.original_route
        if isinstance(original, routing.APIRoute) and route.include_in_schema:
            summary, _, description = inspect.cleandoc(original.endpoint.__doc__ or "").partition("\n")
            for method in route.methods or ():
                operation = document["paths"][route.path_format][method.lower()]
                operation["operationId"] = route.name
                operation["summary"] = summary
                operation["description"] = description.strip()


def _without_fastapi_422(document: dict[str, Any]) -> None:
    """FastAPI's `422 {"detail": ...}` is never sent here: every error is the spec's envelope."""
    fastapi_422 = _ref("HTTPValidationError")
    for operations in document["paths"].values():
        for operation in operations.values():
            unprocessable = operation["responses"].get("422", {})
            if unprocessable.get("content", {}).get("application/json", {}).get("schema") == fastapi_422:
                del operation["responses"]["422"]


_SIGNATURE_HEADERS = [
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "description": "The event id: the same on every retry and replay, so a receiver skips ids it has seen",
        "schema": {"type": "string", "format": "uuid"},
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "description": "Unix seconds when this attempt was sent; refuse it when more than 300 seconds off",
        "schema": {"type": "integer"},
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "description": "Space-separated `v1,<base64>` entries: HMAC-SHA256 of "
        "`{webhook-id}.{webhook-timestamp}.{body}` under the base64-decoded part of the endpoint's secret "
        "after `whsec_` (Standard Webhooks)",
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"},
    },
]


def _webhooks() -> dict[str, Any]:
    """One entry per event type (and the test `ping`): the signed request a subscribed endpoint gets."""
    webhooks: dict[str, Any] = {}
    for event_type, model in DELIVERY_MODELS.items():
        webhooks[event_type] = {
            "post": {
                "summary": f"`{event_type}` delivery",
                "description": (model.__doc__ or "").strip()
                or f"Sent to each enabled endpoint subscribed to `{event_type}`, at least once, signed.",
                "operationId": f"receive_{event_type.replace('.', '_')}",
                "tags": ["webhooks"],
                "parameters": _SIGNATURE_HEADERS,
                "requestBody": {"required": True, "content": json_content(model)},
                "responses": {
                    "2XX": {"description": "Received: any 2xx answer within 10 seconds"},
                    "default": {"description": "Any other answer, or none in 10 seconds, is retried (9 attempts)"},
                },
            }
        }
    return webhooks


def install_openapi(app: FastAPI) -> None:
    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                openapi_version="3.1.0",
                routes=app.routes,
                description=DESCRIPTION,
                tags=TAGS,
                servers=_SERVERS,
                license_info=LICENSE,
            )
            document.setdefault("components", {})
            _components(document)
            _operations_named(document, app.routes)
            _path_ids(document)
            _without_fastapi_422(document)
            document["components"]["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer", "description": "`Authorization: Bearer <API key>`"},
                "basic": {"type": "http", "scheme": "basic", "description": "The API key as user name, no password"},
            }
            document["security"] = [{"bearer": []}, {"basic": []}]
            document["webhooks"] = _webhooks()
            app.openapi_schema = document
        return app.openapi_schema

    # FastAPI's documented way to replace the document; mypy sees it as assigning to a method.
    app.openapi = build  # type: ignore[method-assign]
