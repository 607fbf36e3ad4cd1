"""JSON Schemas of the contract models, as the OpenAPI document's components."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

REF_TEMPLATE = "#/components/schemas/{model}"


class _ContractSchema(GenerateJsonSchema):
    """Without pydantic's `title` on every property (generators would name types after them) and
    without `default: null` on fields that are left out rather than null."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        generated = super().default_schema(schema)
        if generated.get("default", ...) is None:
            del generated["default"]
        return generated


def component_schemas(models: Iterable[type[BaseModel]]) -> dict[str, Any]:
    """Every model in `models`, and every model and enum they use, by name (each name once)."""
    _, definitions = models_json_schema(
        [(model, "validation") for model in models], ref_template=REF_TEMPLATE, schema_generator=_ContractSchema
    )
    schemas: dict[str, Any] = definitions.get("$defs", {})
    _unwrapped(schemas)
    return schemas


def _unwrapped(schema: object) -> None:
    """Descriptions as one line each: docstrings are wrapped for the source, not for readers of the
    document or of the code generated from it."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                schema[key] = " ".join(value.split())
            else:
                _unwrapped(value)
    elif isinstance(schema, list):
        for item in schema:
            _unwrapped(item)
