"""Memory of creating a 25 MB base64 job: no process's resident memory grows by more than about
3x the file, from the request until the job is done.

Peaks are read from /proc (VmHWM), reset just before the request (clear_refs 5), for every
process of the stack. Measured on this machine: api-gateway 37 to 39 MB (1.5x: the 35 MB body,
the document set aside from it before parsing and decoded in place), jobs 28 to 34 MB (the
document reassembled from its slices), virtual-fleet 24 to 56 MB (the agent's download),
agent-gateway 5 to 12 MB.
"""

from __future__ import annotations

import base64
from pathlib import Path

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF
from tests.e2e.jobs_api import create, pdf_body, wait_terminal
from tests.e2e.print_jobs.conftest import Org

FILE_BYTES = 25 * 1024 * 1024
MEASURED = ("api-gateway", "jobs", "agent-gateway", "virtual-fleet", "devices", "webhooks", "dispatcher")
ALLOWED_GROWTH = int(3.2 * FILE_BYTES)


def _kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"{field} missing for {pid}")


def _pid(stack: Stack, name: str) -> int:
    process = stack.services[name].process
    assert process is not None
    return process.pid


def test_a_25_mb_base64_job_raises_no_process_memory_by_more_than_about_3x_the_file(
    org: Org, jobs_stack: Stack
) -> None:
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
    wait_terminal(org.client, job["id"], timeout=60)
    growth = {name: (_kib(_pid(jobs_stack, name), "VmHWM") - before[name]) * 1024 for name in MEASURED}
    print("peak resident growth (MB):", {name: round(value / 2**20, 1) for name, value in growth.items()})
    assert job["fileSize"] == FILE_BYTES
    for name, value in growth.items():
        assert value <= ALLOWED_GROWTH, f"{name} grew by {value / 2**20:.0f} MB for a 25 MB file"
