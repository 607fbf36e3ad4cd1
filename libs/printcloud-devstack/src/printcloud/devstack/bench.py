"""`make bench`: figures measured against a stack started on free ports, printed as a table.

- stack start: from nothing to every service ready;
- POST /v1/printjobs -> `done` for test jobs on a virtual printer, one at a time and 20 at once.
"""

from __future__ import annotations

import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from printcloud.devstack.stack import Stack, StackConfig

PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n").decode()
JOBS = 20


def _cli(database_url: str, *args: str) -> dict:
    out = subprocess.run(
        [str(Path(sys.executable).with_name("printcloud")), *args],
        env={**os.environ, "PRINTCLOUD_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def _wait(check, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise TimeoutError("condition not met")


def _print_one(client: httpx.Client, printer_id: str, n: int) -> float:
    started = time.monotonic()
    job = client.post(
        "/v1/printjobs",
        json={"printerId": printer_id, "title": f"bench {n}", "contentType": "pdf_base64", "content": PDF},
    ).json()
    _wait(lambda: client.get(f"/v1/printjobs/{job['id']}").json()["state"] == "done")
    return time.monotonic() - started


def _summary(label: str, seconds: list[float]) -> str:
    return f"{label:<44} median {statistics.median(seconds):6.2f}s   worst {max(seconds):6.2f}s   n={len(seconds)}"


def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        stack = Stack(StackConfig.on_free_ports(Path(data_dir)), sink=lambda *_: None)
        started = time.monotonic()
        stack.start()
        ready = time.monotonic() - started
        try:
            org = _cli(stack.database_url, "admin", "create-org", "--name", "Bench", "--owner-email", "b@bench.test")
            key = _cli(
                stack.database_url,
                "admin",
                "create-key",
                "--org",
                org["id"],
                "--mode",
                "test",
                "--scopes",
                "read,print",
            )["key"]
            with httpx.Client(base_url=stack.api_url, auth=(key, ""), timeout=30) as client:
                printers = _wait(
                    lambda: [p for p in client.get("/v1/printers").json()["data"] if p["state"] == "online"]
                )
                printer_id = next(p["id"] for p in printers if p["name"] == "virtual-office")
                sequential = [_print_one(client, printer_id, n) for n in range(JOBS)]
                with ThreadPoolExecutor(JOBS) as pool:
                    concurrent = list(pool.map(lambda n: _print_one(client, printer_id, n), range(JOBS)))
        finally:
            stack.stop()
    print(f"{'stack start (services ready)':<44} {ready:6.2f}s")
    print(_summary("POST -> done, one job at a time", sequential))
    print(_summary(f"POST -> done, {JOBS} jobs at once", concurrent))


if __name__ == "__main__":
    main()
