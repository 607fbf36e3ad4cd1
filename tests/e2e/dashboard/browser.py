"""A person using the dashboard in Debian's Chromium: signing in with the e-mailed code, pages under
the production Content-Security-Policy, screenshots, load times, axe-core, and what went wrong in
the browser (console errors, refused resources, failed requests)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from printcloud.devstack.stack import Stack
from tests.e2e.client import eventually
from tests.e2e.dashboard.accounts import mails_to

# The policy the gateway sends with every HTML page (the HTTP edge's), added here to each page so
# that the tests hold the dashboard to it whichever gateway serves it.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HERE = Path(__file__).parent
AXE = _HERE / "node_modules" / "axe-core" / "axe.min.js"
# Served to the page from its own origin, so that the policy (script-src 'self') lets it run.
AXE_PATH = "/__browser-tests__/axe.min.js"
SCREENSHOTS = _HERE.parents[2] / ".dev" / "screenshots" / "dashboard"
_CODE = re.compile(r"sign-in code is (\d{6})")
_LOAD_TIME = """() => {
    const navigation = performance.getEntriesByType('navigation')[0];
    return navigation ? navigation.loadEventEnd - navigation.startTime : 0;
}"""
# Each page's load time (navigation start to the load event), by the name it was shot under.
LOAD_TIMES: dict[str, float] = {}


class Person:
    """One person's browser context (a role, a screen width, scripts on or off)."""

    def __init__(
        self, browser: Any, stack: Stack, who: str, *, width: int = 1280, height: int = 820, scripts: bool = True
    ) -> None:
        self.stack = stack
        self.who = who
        self.context = browser.new_context(
            base_url=stack.api_url, viewport={"width": width, "height": height}, java_script_enabled=scripts
        )
        self.context.route("**/*", self._under_policy)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("response", self._response)
        self.page.on("requestfailed", lambda request: self.problems.append(f"failed: {request.url}"))
        self.taken = 0

    def _under_policy(self, route: Any) -> None:
        if route.request.url.endswith(AXE_PATH):
            route.fulfill(path=str(AXE), content_type="text/javascript")
            return
        try:
            # Redirects reach the browser as they are: post/redirect/get is what is tested.
            response = route.fetch(max_redirects=0)
            headers = dict(response.headers)
            if headers.get("content-type", "").startswith("text/html"):
                headers["content-security-policy"] = CSP
            route.fulfill(response=response, headers=headers)
        except PlaywrightError as error:
            # A page that navigates on while one of its requests is on its way here drops that
            # request, and Playwright disposes of its response: nobody is left to answer.
            if "disposed" not in error.message:
                raise

    def _console(self, message: Any) -> None:
        # A page answering 4xx on purpose is logged as a failed load too; what a page loads is
        # checked by its response (below).
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.problems.append(f"console: {message.text}")

    def _response(self, response: Any) -> None:
        # Pages may answer 4xx on purpose (a refused form); what a page loads (icon, style, script) may not.
        if response.status >= 400 and response.request.resource_type != "document":
            self.problems.append(f"{response.status}: {response.url}")

    def close(self) -> None:
        self.context.close()

    # --- Moving around ------------------------------------------------------------------------

    def visit(self, path: str, name: str | None = None) -> Any:
        """Opens `path`; its load time is kept under `name` (the path when none)."""
        response = self.page.goto(path)
        self.page.wait_for_load_state("load")
        timing = self.page.evaluate(_LOAD_TIME)
        LOAD_TIMES[f"{self.who} {name or path}"] = float(timing)
        return response

    def shot(self, name: str) -> Path:
        self.taken += 1
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{self.who}-{self.taken:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def path(self) -> str:
        return str(self.page.url).removeprefix(self.stack.api_url)

    def notice(self) -> str:
        return str(self.page.locator("p.notice").inner_text())

    # --- Checks -------------------------------------------------------------------------------

    def axe_violations(self) -> list[str]:
        """The serious and critical accessibility violations axe-core finds on the page."""
        assert AXE.exists(), f"{AXE} is missing: `make .venv/.installed-test` installs axe-core (npm ci)"
        self.page.add_script_tag(url=AXE_PATH)
        found = self.page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).join(', '))"""
        )
        return list(found)

    def overflow(self) -> int:
        """How many pixels the page is wider than the window (0 when it fits)."""
        return int(self.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"))

    def too_wide(self) -> list[str]:
        """The elements reaching past the window's right edge, for a failure's message."""
        return list(
            self.page.evaluate(
                """() => Array.from(document.querySelectorAll('body *'))
                    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
                    .slice(0, 8)
                    .map(e => `${e.tagName}.${e.className}#${e.id} ${e.getBoundingClientRect().right}`)"""
            )
        )

    # --- Signing in ---------------------------------------------------------------------------

    def sign_in(self, email: str) -> None:
        page = self.page
        self.visit("/dashboard/sign-in", "sign-in")
        before = len(mails_to(self.stack, email))
        page.get_by_label("E-mail address").fill(email)
        page.get_by_role("button", name="E-mail me a code").click()
        page.wait_for_url("**/dashboard/sign-in/code")
        mail = eventually(lambda: mails_to(self.stack, email)[before:], timeout=15, what=f"the code for {email}")
        code = _CODE.search(mail[-1])
        assert code, mail[-1]
        page.get_by_label("Sign-in code").fill(code.group(1))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/dashboard/overview")


def wait_until(check: Any, what: str, timeout: float = 30) -> Any:
    return eventually(check, timeout=timeout, interval=0.2, what=what)


def elapsed_ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000
