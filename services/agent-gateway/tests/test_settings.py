"""The agent-gateway process refuses to start without its token secret or with a misspelt one."""

from __future__ import annotations

import os
import subprocess
import sys

from printcloud.core.settings import ENV_PREFIX


def _start(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith(ENV_PREFIX)}
    return subprocess.run(
        [sys.executable, "-m", "printcloud.agent_gateway"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_no_secrets_no_start() -> None:
    run = _start({})
    assert run.returncode != 0
    assert run.stderr == (
        "refusing to start: PRINTCLOUD_INTERNAL_AUTH_SECRET must be set; PRINTCLOUD_FILE_TOKEN_SECRET must be set\n"
    )


def test_the_variable_the_old_chart_set_is_refused_by_name() -> None:
    secret = "a-real-secret-of-forty-characters-length"
    run = _start({"PRINTCLOUD_AGENT_FILE_TOKEN_SECRET": secret})
    assert run.returncode != 0
    assert (
        "PRINTCLOUD_AGENT_FILE_TOKEN_SECRET is not a setting of this process"
        " (did you mean PRINTCLOUD_FILE_TOKEN_SECRET?)" in run.stderr
    )
    assert secret not in run.stderr


def test_a_short_secret_is_refused_without_being_shown() -> None:
    run = _start({"PRINTCLOUD_FILE_TOKEN_SECRET": "short-secret"})
    assert run.returncode != 0
    assert "PRINTCLOUD_FILE_TOKEN_SECRET: must have at least 32 characters" in run.stderr
    assert "short-secret" not in run.stderr
