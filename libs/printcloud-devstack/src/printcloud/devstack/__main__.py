"""`make dev`: the whole system on http://127.0.0.1:8080 until Ctrl-C."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

from printcloud.core.db.url import DatabaseUrl
from printcloud.devstack.stack import Stack, StackConfig
from printcloud.devstack.supervisor import Supervisor

NEXT_STEPS = """
PrintCloud is running.
  Dashboard      {dashboard_url}   (sign-in codes arrive in the SMTP sink's mail.log)
  API            {api_url}
  Agent gateway  {agent_gateway_url}
  Database       {database_url}
  SMTP sink      {smtp_sink}
  Ops servers    /metrics, /healthz, /readyz of every process: ops_urls in {state_file}
  Ready in       {seconds:.1f}s

Next, in another terminal (see README.md for the whole walkthrough):
  .venv/bin/printcloud admin create-org --name "Acme" --owner-email you@example.com
  then sign in at {dashboard_url} as you@example.com, or make a key here:
  .venv/bin/printcloud admin create-key --org <id from above> --mode test --scopes read,print,admin
  curl -s -u <key>: {api_url}/v1/printers

A service that exits is started again, waiting longer after each exit. Ctrl-C stops everything.
"""


def main() -> None:
    started = time.monotonic()
    data_dir = Path(".dev").resolve()
    state_file = data_dir / "stack.json"
    # Open sign-up: any address a developer types gets a code and an organization of its own.
    stack = Stack(StackConfig(data_dir=data_dir, signup="open"))
    stopping = threading.Event()
    running = threading.Event()

    def request_stop(*_: object) -> None:
        stopping.set()
        if not running.is_set():
            raise KeyboardInterrupt  # abandons a start in progress; `finally` cleans up

    # Installed explicitly: a shell that starts `make dev` in the background leaves SIGINT ignored,
    # and Python would then install no handler of its own.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, request_stop)
    try:
        stack.start()
        running.set()
        stack.write_state_file(state_file)
        # The state file keeps the password for the CLI; the console shows it hidden.
        shown = {**stack.describe(), "database_url": DatabaseUrl.parse(stack.database_url).redacted()}
        print(NEXT_STEPS.format(seconds=time.monotonic() - started, state_file=state_file, **shown), flush=True)
        supervisor = Supervisor(dict(stack.services), lambda line: print(line, file=sys.stderr, flush=True))
        while not stopping.is_set():
            supervisor.check()
            stopping.wait(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        print("Stopping PrintCloud...", flush=True)
        state_file.unlink(missing_ok=True)
        stack.stop()
        print("Stopped.", flush=True)


if __name__ == "__main__":
    main()
