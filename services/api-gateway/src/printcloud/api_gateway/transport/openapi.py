"""The OpenAPI document: FastAPI's, plus the bodies we parse by hand and the two auth schemes."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from printcloud.api_gateway.transport.schemas import BODY_MODELS

_REF = "#/components/schemas/{model}"


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` for a route that reads `model` with `parse_json_body` rather than a declared body."""
    schema = {"$ref": _REF.format(model=model.__name__)}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "request_id"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "request_id": {"type": "string"},
                "upgrade_url": {"type": "string", "format": "uri"},
            },
        }
    },
}


def _describe_errors(document: dict[str, Any]) -> None:
    """Replaces FastAPI's `422 {"detail": ...}` (never sent here) with the envelope every error uses."""
    schemas = document["components"]["schemas"]
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = _ERROR_SCHEMA
    error = {
        "description": "Error envelope",
        "content": {"application/json": {"schema": {"$ref": _REF.format(model="Error")}}},
    }
    for operations in document["paths"].values():
        for operation in operations.values():
            operation["responses"].pop("422", None)
            operation["responses"]["default"] = error


def install_openapi(app: FastAPI) -> None:
    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version=app.version, routes=app.routes)
            components = document.setdefault("components", {})
            _, definitions = models_json_schema(
                [(model, "validation") for model in BODY_MODELS], by_alias=True, ref_template=_REF
            )
            components.setdefault("schemas", {}).update(definitions.get("$defs", {}))
            components["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer", "description": "`Authorization: Bearer <API key>`"},
                "basic": {"type": "http", "scheme": "basic", "description": "The API key as user name, no password"},
            }
            document["security"] = [{"bearer": []}, {"basic": []}]
            _describe_errors(document)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = build  # type: ignore[method-assign]
