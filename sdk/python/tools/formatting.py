"""Generated sources are written as `ruff format` would, so `make lint` holds them like the rest."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path


def ruff_formatted(source: str, filename: str) -> str:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        raise SystemExit("ruff is needed to format generated sources (pip install -r requirements-dev.txt)")
    for command in (["check", "--select", "I", "--fix-only", "--quiet"], ["format"]):
        source = subprocess.run(
            [ruff, *command, "--stdin-filename", filename, "-"],
            input=source,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return source
