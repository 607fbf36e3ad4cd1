"""`pytest -m bench -s tests/e2e/dashboard/test_dashboard_bench.py`: what a session costs next to a
key on the same `/v1` request, and how long the heaviest dashboard pages take to render. Prints the
figures; asserts only that every request succeeded."""

from __future__ import annotations

import statistics
import time
import uuid

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import api
from tests.e2e.dashboard.accounts import signed_in
from tests.e2e.tenants import create_key, create_org

REQUESTS = 300


def _timings(client: httpx.Client, path: str, count: int) -> list[float]:
    spent = []
    for _ in range(count):
        began = time.perf_counter()
        answer = client.get(path)
        spent.append((time.perf_counter() - began) * 1000)
        assert answer.status_code == 200, answer.text[:300]
    return spent


def _line(label: str, spent: list[float]) -> str:
    spent = sorted(spent)
    p95 = spent[int(len(spent) * 0.95) - 1]
    return f"{label:<34} median {statistics.median(spent):6.1f} ms   p95 {p95:6.1f} ms   ({len(spent)} requests)"


@pytest.mark.bench
def test_session_and_page_latency(dashboard_stack: Stack) -> None:
    email = f"bench-{uuid.uuid4().hex[:6]}@bench.test"
    org_id = create_org(dashboard_stack, "Bench", email)
    session = signed_in(dashboard_stack, email)
    with api(dashboard_stack.api_url, create_key(dashboard_stack, org_id, "test", "read")) as key:
        figures = [
            _line("GET /v1/whoami, API key", _timings(key, "/v1/whoami", REQUESTS)),
            _line("GET /v1/whoami, session", _timings(session, "/v1/whoami", REQUESTS)),
            _line("GET /dashboard/overview", _timings(session, "/dashboard/overview", REQUESTS // 3)),
            _line("GET /dashboard/printers", _timings(session, "/dashboard/printers", REQUESTS // 3)),
        ]
    print("\n" + "\n".join(figures))
