"""Service processes with prefixed logs that never outlive the stack that started them."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO

from printcloud.core.settings import ENV_PREFIX


def dies_with_parent(command: list[str]) -> list[str]:
    """`command`, wrapped so that it gets SIGTERM when the stack's process dies, even by kill -9.

    util-linux's `setpriv` sets the parent-death signal before it execs the command. A
    `preexec_fn` could do the same, but it runs Python in the forked child, which is unsafe once
    the parent has gRPC threads (the test process does). Where `setpriv` is missing (macOS), the
    stack's own shutdown still stops every child. The signal comes when the *thread* that started
    the command ends, not only the process: start it from a thread that lives as long as it should.
    """
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", *command] if setpriv else command


def with_settings(env: dict[str, str]) -> dict[str, str]:
    """This process's environment with every PrintCloud setting replaced by `env`'s: the stack
    decides every setting a service gets (`service_env`)."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)}, **env}


class ServiceProcess:
    """One service run as `python -m <module>` with its environment and a log-line prefix; `python`
    is this stack's own interpreter, or another release's (the upgrade tests run the previous one)."""

    def __init__(
        self,
        name: str,
        module: str,
        env: dict[str, str],
        sink: Callable[[str, str], None],
        python: str = sys.executable,
    ) -> None:
        self.name = name
        self.module = module
        self.env = env
        self.sink = sink
        self.python = python
        self.process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            dies_with_parent([self.python, "-m", self.module]),
            env=with_settings(self.env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            start_new_session=True,
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

    def pause(self) -> None:
        """Freezes the process (SIGSTOP): its connections stay open and nothing answers, much as a
        replica whose machine froze or vanished looks to its peers."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
