"""`make bench`: starts a stack of its own on free ports, measures every performance figure and the
bare parts they are made of in the same run, and prints one table.

`python -m printcloud.devstack.bench [--seconds N] [--only FIGURE ...] [--agents N] [--agent-printers N]
[--pipeline-rate N] [--profile DIR]`
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from printcloud.devstack.bench.agents import raise_open_files_limit
from printcloud.devstack.bench.cpu import render_cpu
from printcloud.devstack.bench.figures import Figures, machine_load
from printcloud.devstack.bench.table import Row, render
from printcloud.devstack.bench.tenants import make_tenants
from printcloud.devstack.stack import Stack, StackConfig

TENANTS = 12
STACK_ENV = {"PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32"}
# Limits meant for real callers would measure themselves: the bench's clients are few and fast.
# Jobs go on their own topic, as docs/upgrades.md ("Topics") advises a new install.
SERVICE_ENV = {
    "api-gateway": {"PRINTCLOUD_RATE_LIMIT_PER_SECOND": "1000000"},
    "jobs": {"PRINTCLOUD_TEST_JOBS_PER_DAY": "100000000", "PRINTCLOUD_CREATE_JOBS_ON_JOB_EVENTS_TOPIC": "true"},
    "virtual-fleet": {
        "PRINTCLOUD_VIRTUAL_PRINTING_AFTER_SECONDS": "0",
        "PRINTCLOUD_VIRTUAL_DONE_AFTER_SECONDS": "0",
        "PRINTCLOUD_FLEET_POLL_SECONDS": "0.5",
    },
}
FIGURES = ("bare", "rest", "whoami", "printers", "create", "job", "pipeline", "webhooks", "agents")
AGENTS = 10_000
# Each agent is a socket in the gateway and one in the bench, plus the rest each process holds.
OPEN_FILES_PER_AGENT = 2


class _Rows(list[Row]):
    """Shows each row as it is measured: a whole run takes minutes."""

    def append(self, row: Row) -> None:
        print(f"  {row.figure.strip()}: {row.measured} {row.verdict}".rstrip(), file=sys.stderr, flush=True)
        super().append(row)

    def add(self, rows: list[Row]) -> None:
        for row in rows:
            self.append(row)


def measure(figures: Figures, only: set[str], arguments: argparse.Namespace) -> list[Row]:
    rows = _Rows()
    if "bare" in only:
        rows.append(figures.bare_api())
        rows.append(figures.bare_grpc())
        rows.append(figures.bare_transaction())
        rows.append(figures.bare_select())
        rows.add(figures.floors())
    if "rest" in only:
        rows.append(figures.at_rest())
    if "create" in only:
        rows.add(figures.create(16))
        rows.add(figures.create(1))
    if "pipeline" in only:
        rows.add(figures.pipeline(jobs=int(60 * figures.seconds), rate=arguments.pipeline_rate))
    if "printers" in only:
        rows.add(figures.printers())
    if "job" in only:
        rows.add(figures.print_job())
    if "whoami" in only:
        rows.add(figures.whoami())
        rows.add(figures.whoami_without_key())
    if "webhooks" in only:
        rows.append(figures.webhook_deliveries())
    if "agents" in only:
        rows.add(figures.idle_agents(arguments.agents, arguments.agent_printers))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m printcloud.devstack.bench")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long each load figure runs")
    parser.add_argument("--only", nargs="*", choices=FIGURES, default=list(FIGURES))
    parser.add_argument("--agents", type=int, default=AGENTS, help="how many agents the agent-gateway figures hold")
    parser.add_argument("--agent-printers", type=int, default=0,
                        help="how many printers each of those agents reports in its hello")  # fmt: skip
    parser.add_argument("--pipeline-rate", type=float, default=0.0,
                        help="jobs a second the pipeline figure posts (0: as fast as its clients go)")  # fmt: skip
    parser.add_argument("--profile", type=Path, help="sample every service with py-spy into this directory")
    arguments = parser.parse_args()
    open_files = raise_open_files_limit(OPEN_FILES_PER_AGENT * arguments.agents + 1024)
    with tempfile.TemporaryDirectory() as data_dir:
        config = StackConfig.on_free_ports(Path(data_dir), env=STACK_ENV, service_env=SERVICE_ENV)
        stack = Stack(config, sink=lambda *_: None)
        began = time.monotonic()
        stack.start()
        ready = time.monotonic() - began
        try:
            print(f"stack ready in {ready:.1f}s; {machine_load()}; open files limit {open_files:,}", file=sys.stderr)
            figures = Figures(
                stack, make_tenants(stack.database_url, stack.api_url, TENANTS), arguments.seconds, arguments.profile
            )
            rows = measure(figures, set(arguments.only), arguments)
        finally:
            stack.stop()
    cpu = render_cpu(figures.cpu_rows)
    notes = [
        f"{TENANTS} test-mode organizations; jobs created on printcloud.job-events;"
        f" each load figure {arguments.seconds:.0f}s after 1s of warm-up;"
        f" {machine_load()}."
    ]
    print(render(rows, notes))
    if cpu:
        print(f"\n{cpu}")


if __name__ == "__main__":
    main()
