"""The release a process reports: its packages' version, written as the release names it."""

from __future__ import annotations

import httpx
import pytest

from printcloud.core import release
from printcloud.core.telemetry.ops import ops_app


@pytest.mark.parametrize(
    ("python_form", "semver"),
    [("1.0.0", "1.0.0"), ("1.1.0-dev", "1.1.0-dev"), ("1.1.0.dev0", "1.1.0-dev"), ("2.0.0rc3", "2.0.0-rc.3")],
)
def test_a_package_version_reads_as_the_release_wrote_it(python_form: str, semver: str) -> None:
    assert release.semver(python_form) == semver


@pytest.mark.parametrize("foreign", ["0.1", "1.0.0.post1", "1.0.0+local", "1.0.0.dev3", "1.0.0a1"])
def test_a_version_no_release_takes_is_refused(foreign: str) -> None:
    with pytest.raises(ValueError, match="not a PrintCloud release version"):
        release.semver(foreign)


async def test_healthz_on_the_ops_port_names_the_release() -> None:
    transport = httpx.ASGITransport(app=ops_app("jobs"))
    async with httpx.AsyncClient(transport=transport, base_url="http://ops") as ops:
        health = (await ops.get("/healthz")).json()
    assert health == {"status": "ok", "service": "jobs", "version": release.version()}
    assert release.SEMVER.match(health["version"])
