"""The dashboard under its Content-Security-Policy, in a real browser (Debian's Chromium) against a
real server: signing in and every page linked from the overview work with nothing refused, and
the policy does refuse what it must (an inline script)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, ConsoleMessage, Page, async_playwright
from playwright.async_api import Error as PlaywrightError

from printcloud.api_gateway.settings import DashboardSettings
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.devstack.smtp_sink import SmtpSink
from tests.support.served_app import served
from tests.support.sign_in_mail import mailed_code

CHROMIUM = Path("/usr/bin/chromium")
# No sandbox: tests run as root, where Chromium's sandbox does not start.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    assert CHROMIUM.exists(), "install Chromium with scripts/ci-chromium.sh"  # noqa: ASYNC240 - once, before any await
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@pytest.fixture(scope="module")
async def dashboard_url(deps: GatewayDeps, sink: SmtpSink) -> AsyncIterator[str]:
    settings = DashboardSettings(smtp_host="127.0.0.1", smtp_port=sink.port, signup="open")
    async with served(create_app(replace(deps, dashboard=settings))) as url:
        yield url


class Refusals:
    """What the browser refused under the policy: Chromium reports each on the console."""

    def __init__(self, page: Page) -> None:
        self.seen: list[str] = []
        page.on("console", self._note)

    def _note(self, message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            self.seen.append(message.text)


async def _styled(page: Page) -> bool:
    """Whether the page's stylesheets loaded (a refused one has no rules to read)."""
    return bool(
        await page.evaluate(
            "() => document.styleSheets.length > 0 && [...document.styleSheets].every(s => s.cssRules.length > 0)"
        )
    )


async def test_signing_in_and_every_page_work_under_the_policy_which_refuses_inline_script(
    browser: Browser, dashboard_url: str, sink: SmtpSink
) -> None:
    context = await browser.new_context(base_url=dashboard_url)
    page = await context.new_page()
    refusals = Refusals(page)
    email = f"csp-{uuid.uuid4().hex[:8]}@example.test"
    try:
        await page.goto("/dashboard/sign-in")
        assert await _styled(page)
        await page.fill("input[name=email]", email)
        await page.press("input[name=email]", "Enter")
        await page.wait_for_selector("input[name=code]")
        await page.fill("input[name=code]", await mailed_code(sink, email))
        await page.press("input[name=code]", "Enter")
        await page.wait_for_url("**/dashboard/overview")

        hrefs = await page.eval_on_selector_all(
            "a[href^='/dashboard/']", "links => links.map(a => a.getAttribute('href'))"
        )
        pages = sorted({urlsplit(href).path for href in hrefs})
        assert len(pages) >= 5, pages
        for path in pages:
            answer = await page.goto(path)
            assert answer is not None and "text/html" in answer.headers["content-type"], path
            assert await _styled(page), path
        assert refusals.seen == []

        # The policy is in force: an inline script is refused, and the refusal is seen.
        with pytest.raises(PlaywrightError, match="violates the following Content Security Policy directive"):
            await page.add_script_tag(content="window.inlineRan = true")
        assert await page.evaluate("() => window.inlineRan === true") is False
        assert any("inline script" in seen for seen in refusals.seen), refusals.seen
    finally:
        await context.close()
