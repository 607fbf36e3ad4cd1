"""The bench's organizations: test-mode ones made with the operator CLI, as an operator would,
each with a key of every scope and its virtual office printer online."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx

T = TypeVar("T")


@dataclass(frozen=True)
class Tenant:
    organization_id: str
    key: str
    printer_id: str


def cli(database_url: str, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [str(Path(sys.executable).with_name("printcloud")), *args],
        env={**os.environ, "PRINTCLOUD_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        check=True,
    )
    answer: dict[str, Any] = json.loads(out.stdout)
    return answer


def wait_for(check: Callable[[], T | None], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(f"{what}: not within {timeout:.0f}s")


def make_tenants(database_url: str, api_url: str, count: int) -> list[Tenant]:
    made = []
    for n in range(count):
        org = cli(database_url, "admin", "create-org", "--name", f"Bench {n}", "--owner-email", f"o{n}@bench.test")
        key = cli(database_url, "admin", "create-key", "--org", org["id"], "--mode", "test",
                  "--scopes", "read,print,admin")["key"]  # fmt: skip
        made.append((org["id"], key))
    tenants = []
    with httpx.Client(base_url=api_url, timeout=30) as client:
        for organization_id, key in made:

            def office_printer(key: str = key) -> str | None:
                printers = client.get("/v1/printers", headers={"Authorization": f"Bearer {key}"}).json()["data"]
                online = [p["id"] for p in printers if p["name"] == "virtual-office" and p["state"] == "online"]
                return online[0] if online else None

            tenants.append(Tenant(organization_id, key, wait_for(office_printer, 90, "virtual office printer")))
    return tenants
