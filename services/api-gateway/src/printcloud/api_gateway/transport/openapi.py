"""The OpenAPI document: FastAPI's paths, with what each operation really accepts and sends.

Routes read their bodies by hand (see `bodies`), so their request schemas come from `openapi_extra`
and their responses from `documented`, never from FastAPI's inference: the route still renders the
JSON, and the document only describes it. The result is a contract schemathesis tests the running
stack against (tests/contract).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from fastapi import FastAPI, routing
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.routing import BaseRoute

from printcloud.api_gateway.transport.schemas import BODY_MODELS
from printcloud.core.errors import STATUS_BY_CODE

_REF = "#/components/schemas/{model}"
# NUL, which the API refuses wherever it appears (printcloud.core.storable_text), stated for every
# string the client sends that has no pattern of its own. (Lone surrogates, refused too, are no
# Unicode text at all, so no JSON Schema string holds one.)
STORABLE_TEXT = "^[^\\u0000]*$"

_ERROR_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "additionalProperties": False,
            "required": ["code", "message", "request_id"],
            "properties": {
                "code": {"type": "string", "enum": list(STATUS_BY_CODE)},
                "message": {"type": "string"},
                "request_id": {"type": "string", "description": "Equals the `X-Request-Id` header"},
                "upgrade_url": {"type": "string", "format": "uri", "description": "Only on `quota_exceeded`"},
            },
        }
    },
}
_REQUEST_ID = {
    "X-Request-Id": {"description": "Sent on every response", "required": True, "schema": {"type": "string"}}
}


def _codes_of(status: int) -> str:
    return ", ".join(f"`{code}`" for code, code_status in STATUS_BY_CODE.items() if code_status == status)


# Every operation may answer these: a bad query string, no key, a key without the scope, headers
# too slow (408) or too large (431) for the edge (printcloud.core.edge_http), the rate limit, and a
# service-side failure.
COMMON_ERRORS: tuple[int | str, ...] = (400, 401, 403, 408, 429, 431, "5XX")
_ERROR_DESCRIPTIONS: dict[int | str, str] = {
    status: _codes_of(status) for status in sorted(set(STATUS_BY_CODE.values())) if status < 500
}
_ERROR_DESCRIPTIONS["5XX"] = "A service-side problem (`internal_error`, `service_unavailable`, ...); retry with backoff"


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": _REF.format(model=model.__name__)}


def json_content(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(model)}}


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` for a route that reads `model` with `parse_json_body` rather than a declared body."""
    return {"requestBody": {"required": True, "content": json_content(model)}}


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
        success["model"] = model
    if links:
        success["links"] = links
    responses: dict[int | str, dict[str, Any]] = {status: success}
    every: set[int | str] = {*COMMON_ERRORS, *errors}
    for error in sorted(every, key=str):
        responses[error] = {
            "description": _ERROR_DESCRIPTIONS[error],
            "headers": _REQUEST_ID,
            "content": {"application/json": {"schema": {"$ref": _REF.format(model="Error")}}},
        }
    return {"status_code": status, "response_model": None, "responses": responses}


def link(operation_id: str, source: str = "$response.body#/id", **extra: Any) -> dict[str, Any]:
    """A link passing the id at `source` as the target operation's path `id`."""
    return {"operationId": operation_id, "parameters": {"path.id": source}, **extra}


def _with_storable_text(schema: object) -> None:
    """Adds `STORABLE_TEXT` to every string schema without a pattern, format or enum of its own."""
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


def _request_schemas(document: dict[str, Any], models: Iterable[type[BaseModel]]) -> None:
    """The request body models as components (their own `$defs` among them, so every `$ref` resolves)."""
    _, definitions = models_json_schema([(model, "validation") for model in models], by_alias=True, ref_template=_REF)
    schemas = definitions.get("$defs", {})
    _with_storable_text(schemas)
    clashes = schemas.keys() & document["components"]["schemas"].keys()
    assert not clashes, f"request and response models share the names {sorted(clashes)}"
    document["components"]["schemas"].update(schemas)
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


def _operation_ids(document: dict[str, Any], routes: Sequence[BaseRoute]) -> None:
    """Each operation is named after its route function (`get_print_job`), which links refer to."""
    for route in routing.iter_route_contexts(routes):
        if isinstance(route.original_route, routing.APIRoute) and route.include_in_schema:
            for method in route.methods or ():
                document["paths"][route.path_format][method.lower()]["operationId"] = route.name


def _describe_errors(document: dict[str, Any]) -> None:
    """FastAPI's `422 {"detail": ...}` is never sent here: every error is the spec's envelope."""
    schemas = document["components"]["schemas"]
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = copy.deepcopy(_ERROR_SCHEMA)
    fastapi_422 = {"$ref": _REF.format(model="HTTPValidationError")}
    for operations in document["paths"].values():
        for operation in operations.values():
            unprocessable = operation["responses"].get("422", {})
            if unprocessable.get("content", {}).get("application/json", {}).get("schema") == fastapi_422:
                del operation["responses"]["422"]


def install_openapi(app: FastAPI) -> None:
    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version=app.version, routes=app.routes, description=app.description)
            document.setdefault("components", {}).setdefault("schemas", {})
            _request_schemas(document, BODY_MODELS)
            _operation_ids(document, app.routes)
            _path_ids(document)
            document["components"]["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer", "description": "`Authorization: Bearer <API key>`"},
                "basic": {"type": "http", "scheme": "basic", "description": "The API key as user name, no password"},
            }
            document["security"] = [{"bearer": []}, {"basic": []}]
            _describe_errors(document)
            app.openapi_schema = document
        return app.openapi_schema

    # FastAPI's documented way to replace the document; mypy sees it as assigning to a method.
    app.openapi = build  # type: ignore[method-assign]
