"""The TypeScript SDK's own tests (`npm test` in sdk/typescript) against the running stack."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.e2e.sdk.conftest import ApiUser

TYPESCRIPT = Path(__file__).parents[3] / "sdk" / "typescript"


def test_npm_test_passes_against_the_stack(api_user: ApiUser) -> None:
    npm = shutil.which("npm")
    assert npm, "node and npm are needed for the TypeScript SDK (docs/clients.md)"
    assert (TYPESCRIPT / "node_modules").is_dir(), "its packages are missing: `make .venv/.installed-test` runs npm ci"
    run = subprocess.run([npm, "test"], cwd=TYPESCRIPT, env=api_user.env(), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-4000:]
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.MULTILINE)
    assert "# fail 0" in run.stdout and passed and int(passed[1]) >= 7, run.stdout[-4000:]
