"""Writes the SDK's models (`printcloud_sdk/models.py`) from the OpenAPI document.

    python sdk/python/tools/generate_models.py sdk/openapi.json   # rewrites src/printcloud_sdk/models.py

`make sdk` runs it; a test regenerates the file and fails when the committed one differs, so the
SDK's models are always the document's. Only the standard library is used: the document is the
input, nothing of the server.

Choices for users rather than for validation: field names in snake_case (the JSON name as alias),
no constraints (the server checks them and answers errors), fields and enum values the SDK does not
know are kept rather than refused (see `_base`), so a newer server does not break an older SDK.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from pathlib import Path
from typing import Any

from formatting import ruff_formatted

TARGET = Path(__file__).parents[1] / "src" / "printcloud_sdk" / "models.py"

HEADER = '''"""Models of the PrintCloud API, generated from its OpenAPI document by tools/generate_models.py.

Do not edit: change the server's contract models, then run `make sdk`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from printcloud_sdk._base import ApiEnum, ApiIntEnum, ApiModel
'''


def snake(name: str) -> str:
    converted = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    if keyword.iskeyword(converted):
        converted += "_"
    return converted


def _member(value: Any) -> str:
    if isinstance(value, int):
        return f"VALUE_{value}"
    return re.sub(r"[^A-Za-z0-9]+", "_", str(value)).strip("_").upper()


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return _ref_name(schema["$ref"])
    if "const" in schema:
        return f"Literal[{json.dumps(schema['const'])}]"
    for union in ("anyOf", "oneOf"):
        if union in schema:
            members = [type_of(member) for member in schema[union]]
            joined = " | ".join(dict.fromkeys(members))
            if "discriminator" in schema:
                return f'Annotated[{joined}, Field(discriminator="{schema["discriminator"]["propertyName"]}")]'
            return joined
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return type_of(schema["allOf"][0])
    kind = schema.get("type")
    if kind == "null":
        return "None"
    if kind == "string":
        return "datetime" if schema.get("format") == "date-time" else "str"
    if kind == "integer":
        return "int"
    if kind == "number":
        return "float"
    if kind == "boolean":
        return "bool"
    if kind == "array":
        return f"list[{type_of(schema.get('items', {}))}]"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"dict[str, {type_of(schema['additionalProperties'])}]"
    return "Any"


def _docstring(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    lines = text.strip().replace('"""', "'''").splitlines()
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}', *(f"{indent}{line}".rstrip() for line in lines[1:]), f'{indent}"""']


def _enum(name: str, schema: dict[str, Any]) -> list[str]:
    base = "ApiIntEnum" if schema.get("type") == "integer" else "ApiEnum"
    lines = [f"class {name}({base}):", *_docstring(schema.get("description"), "    ")]
    lines += [f"    {_member(value)} = {json.dumps(value)}" for value in schema["enum"]]
    return lines


def _model(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"class {name}(ApiModel):", *_docstring(schema.get("description"), "    ")]
    required = set(schema.get("required", []))
    properties: dict[str, Any] = schema.get("properties", {})
    for json_name, field in properties.items():
        python_name = snake(json_name)
        annotation = type_of(field)
        arguments = []
        if json_name not in required:
            annotation = f"{annotation} | None"
            arguments.append("None")
        if python_name != json_name:
            arguments.append(f'alias="{json_name}"')
        description = field.get("description")
        if description:
            arguments.append(f"description={json.dumps(' '.join(description.split()), ensure_ascii=False)}")
        if arguments == ["None"]:
            lines.append(f"    {python_name}: {annotation} = None")
        elif arguments:
            lines.append(f"    {python_name}: {annotation} = Field({', '.join(arguments)})")
        else:
            lines.append(f"    {python_name}: {annotation}")
    if not properties and len(lines) == 1:
        lines.append("    pass")
    return lines


def generate(document: dict[str, Any]) -> str:
    schemas: dict[str, Any] = document["components"]["schemas"]
    blocks: list[list[str]] = []
    aliases: list[list[str]] = []
    models: list[str] = []
    for name in sorted(schemas):
        schema = schemas[name]
        if "enum" in schema:
            blocks.append(_enum(name, schema))
        elif "oneOf" in schema or "anyOf" in schema:
            comment = [f"# {line}".rstrip() for line in (schema.get("description") or "").splitlines()]
            aliases.append([*comment, f"{name} = {type_of(schema)}"])
        else:
            blocks.append(_model(name, schema))
            models.append(name)
    body = "\n\n\n".join("\n".join(block) for block in blocks)
    unions = "\n\n".join("\n".join(alias) for alias in aliases)
    rebuild = "\n".join(f"{name}.model_rebuild()" for name in models)
    return f"{HEADER}\n\n{body}\n\n\n{unions}\n\n{rebuild}\n"


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        document = json.load(file)
    generated = ruff_formatted(generate(document), str(TARGET))
    if "--check" in sys.argv:
        sys.exit(0 if TARGET.read_text() == generated else 1)
    TARGET.write_text(generated)


if __name__ == "__main__":
    main()
