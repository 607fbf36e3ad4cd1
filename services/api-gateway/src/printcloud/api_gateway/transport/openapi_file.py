"""Writes the OpenAPI document to a file, as the SDKs are generated from it (`make sdk`).

python -m printcloud.api_gateway.transport.openapi_file sdk/openapi.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from printcloud.api_gateway.transport.http import openapi_document


def document_text() -> str:
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    Path(sys.argv[1]).write_text(document_text())


if __name__ == "__main__":
    main()
