"""Memory of creating a 25 MB base64 job: peak resident growth of the gateway and jobs processes.

Peaks are read from /proc (VmHWM), reset just before the request (clear_refs 5). The issue's
target is about 3x the file. Measured on this machine: api-gateway 66 to 101 MB (2.7x to 4x; the
spread is the allocator's), jobs about 115 MB (4.6x: the gRPC receive buffer, its bytes, the
message and the bytes read from it each hold the file). The bounds below are what holds today, so
a regression fails; meeting 3x in jobs needs the file streamed to it (see the handover note).

A benchmark, not part of `make test`: the allocator's spread (up to 5x measured for the gateway
under load) makes a fixed bound flaky. `make bench` runs it and prints the figures.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF
from tests.e2e.print_jobs.conftest import Org
from tests.e2e.print_jobs.jobs_api import create, pdf_body, wait_terminal

FILE_BYTES = 25 * 1024 * 1024
MEASURED = ("api-gateway", "jobs")
ALLOWED_GROWTH = {"api-gateway": int(4.5 * FILE_BYTES), "jobs": int(5.5 * FILE_BYTES)}


def _kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"{field} missing for {pid}")


def _pid(stack: Stack, name: str) -> int:
    process = stack.services[name].process
    assert process is not None
    return process.pid


@pytest.mark.bench
def test_a_25_mb_base64_job_stays_within_the_measured_memory_bounds(org: Org, jobs_stack: Stack) -> None:
    document = MINIMAL_PDF + b"\0" * (FILE_BYTES - len(MINIMAL_PDF))
    body = pdf_body(org.printers["virtual-office"]["id"], content=base64.b64encode(document).decode())
    del document
    # A first large job warms allocator arenas and gRPC buffers, which later jobs reuse.
    wait_terminal(org.client, create(org.client, body)["id"], timeout=60)
    before = {}
    for name in MEASURED:
        pid = _pid(jobs_stack, name)
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS
        before[name] = _kib(pid, "VmRSS")
    job = create(org.client, body)
    growth = {name: (_kib(_pid(jobs_stack, name), "VmHWM") - before[name]) * 1024 for name in MEASURED}
    print("peak resident growth (MB):", {name: round(value / 2**20, 1) for name, value in growth.items()})
    assert job["fileSize"] == FILE_BYTES
    for name, value in growth.items():
        assert value <= ALLOWED_GROWTH[name], f"{name} grew by {value / 2**20:.0f} MB for a 25 MB file"
