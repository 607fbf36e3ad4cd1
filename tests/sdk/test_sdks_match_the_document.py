"""Each SDK is the OpenAPI document's: the committed document is what the gateway builds, and
what is generated from it (the Python models, the synchronous client, the TypeScript types) is
what the generators write today. `make sdk` regenerates all of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from printcloud.api_gateway.transport.openapi_file import document_text
from printcloud_sdk import models

ROOT = Path(__file__).parents[2]
DOCUMENT = ROOT / "sdk" / "openapi.json"
TOOLS = ROOT / "sdk" / "python" / "tools"
TYPESCRIPT = ROOT / "sdk" / "typescript"


def test_the_committed_document_is_the_one_the_gateway_serves() -> None:
    assert DOCUMENT.read_text() == document_text(), "sdk/openapi.json is stale: run `make sdk`"


@pytest.mark.parametrize("tool", ["generate_models.py", "unasync.py"])
def test_the_python_sdk_is_generated_from_the_document(tool: str) -> None:
    arguments = [str(DOCUMENT)] if tool == "generate_models.py" else []
    run = subprocess.run([sys.executable, str(TOOLS / tool), *arguments, "--check"], capture_output=True, text=True)
    assert run.returncode == 0, f"{tool} would change the SDK: run `make sdk`\n{run.stderr}"


def _models() -> list[type[BaseModel]]:
    return [value for value in vars(models).values() if isinstance(value, type) and issubclass(value, models.ApiModel)]


def test_every_python_model_has_exactly_the_documents_fields() -> None:
    schemas: dict[str, Any] = json.loads(DOCUMENT.read_text())["components"]["schemas"]
    checked = 0
    for model in _models():
        if model is models.ApiModel:
            continue
        properties = schemas[model.__name__]["properties"] if schemas[model.__name__].get("properties") else {}
        fields = {field.alias or name for name, field in model.model_fields.items()}
        assert fields == set(properties), model.__name__
        required = {field.alias or name for name, field in model.model_fields.items() if field.is_required()}
        assert required == set(schemas[model.__name__].get("required", [])), model.__name__
        checked += 1
    assert checked >= 60


def test_the_typescript_types_are_generated_from_the_document(tmp_path: Path) -> None:
    generator = TYPESCRIPT / "node_modules" / ".bin" / "openapi-typescript"
    assert generator.exists(), "the TypeScript SDK's packages are missing: `make .venv/.installed-test` installs them"
    output = tmp_path / "schema.ts"
    run = subprocess.run(
        [str(generator), str(DOCUMENT), "--output", str(output)], capture_output=True, text=True, cwd=TYPESCRIPT
    )
    assert run.returncode == 0, run.stderr
    assert output.read_text() == (TYPESCRIPT / "src" / "schema.ts").read_text(), "stale: run `make sdk`"
