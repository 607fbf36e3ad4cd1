"""Starting a whole stack for a suite of end-to-end tests, and collecting its services' logs."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from printcloud.devstack.stack import Stack, StackConfig

SUITES_RATE_LIMIT = 100_000


class LogFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._file = path.open("a", buffering=1)

    def __call__(self, name: str, line: str) -> None:
        with self._lock:
            self._file.write(f"{name:>14} | {line}\n")

    def records(self) -> list[tuple[str, dict]]:
        """(service, JSON log record) for every structured line logged so far."""
        with self._lock:
            self._file.flush()
            lines = self.path.read_text().splitlines()
        parsed = []
        for line in lines:
            name, _, rest = line.partition(" | ")
            if rest.startswith("{"):
                parsed.append((name.strip(), json.loads(rest)))
        return parsed


@contextlib.contextmanager
def running_stack(data_dir: Path, logs: LogFile, env: dict[str, str] | None = None, **config: Any) -> Iterator[Stack]:
    """The stack on free ports with `env` for every service; its log lines go to `logs`, and the
    tail of them is printed when it fails to start.

    The suites send requests at test speed (bursts of creates, polling), which the spec's 20 a
    second per key would refuse; the request rate has its own suite, tests/e2e/limits, which sets
    the spec's value back through `env`."""
    env = {"PRINTCLOUD_RATE_LIMIT_PER_SECOND": str(SUITES_RATE_LIMIT), **(env or {})}
    stack = Stack(StackConfig.on_free_ports(data_dir, env=env, **config), sink=logs)
    try:
        stack.start()
    except Exception:
        print(logs.path.read_text()[-20000:])
        raise
    try:
        yield stack
    finally:
        stack.stop()
        print(f"\nservice logs: {logs.path}")
