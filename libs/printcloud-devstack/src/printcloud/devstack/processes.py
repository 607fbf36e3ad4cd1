"""Service processes with prefixed logs that never outlive the stack that started them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO

_PR_SET_PDEATHSIG = 1


def child_preexec() -> None:
    """Runs in the child before exec: dies with its parent, even when the parent is killed -9."""
    os.setpgrp()
    # Not on Linux: the stack's own shutdown still stops its children.
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class ServiceProcess:
    """One service run as `python -m <module>` with its environment and a log-line prefix."""

    def __init__(self, name: str, module: str, env: dict[str, str], sink: Callable[[str, str], None]) -> None:
        self.name = name
        self.module = module
        self.env = env
        self.sink = sink
        self.process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module],
            env={**os.environ, **self.env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            preexec_fn=child_preexec,
        )
        self._reader = threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True)
        self._reader.start()

    def _pump(self, stream: IO[str] | None) -> None:
        if stream is None:
            return
        for line in stream:
            self.sink(self.name, line.rstrip("\n"))

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def kill(self) -> None:
        """SIGKILL, as a crash would: no cleanup runs in the service."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
