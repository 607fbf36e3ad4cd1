"""A stack of its own for the dashboard: sign-up closed (the Helm chart's default), webhooks may
deliver to 127.0.0.1, and a Chromium for the browser journey."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.stacks import LogFile, running_stack

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="package")
def dashboard_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("dashboard-stack")
    env = {
        "PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32",
        "PRINTCLOUD_RETRY_SCHEDULE_SCALE": "0.01",
        # Every test signs in from 127.0.0.1; the per-client limit is tested in the gateway's own tests.
        "PRINTCLOUD_SIGN_IN_REQUESTS_PER_CLIENT": "1000",
        # The journey polls pages and the bench measures at speed; the 20 a second is tested elsewhere.
        "PRINTCLOUD_RATE_LIMIT_PER_SECOND": "1000",
    }
    with running_stack(data_dir, LogFile(data_dir / "services.log"), env, signup="closed") as running:
        yield running


@pytest.fixture(scope="package")
def chromium() -> Iterator[object]:
    """Debian's Chromium (scripts/ci-chromium.sh installs it); Playwright never downloads one."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "install Chromium with scripts/ci-chromium.sh"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
