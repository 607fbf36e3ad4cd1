"""The previous release installed once per session for the rolling-upgrade tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.upgrade.release_venv import InstalledRelease, installed
from tests.upgrade.releases import previous_release


@pytest.fixture(scope="session")
def previous() -> InstalledRelease:
    release = installed(previous_release())
    print(f"\nprevious release {release.release.version} ({release.commit[:12]}): {release.python}"
          f"{f', installed in {release.seconds_to_install}s' if release.seconds_to_install else ''}")  # fmt: skip
    return release


@pytest.fixture(scope="module")
def data_dir(request: pytest.FixtureRequest) -> Iterator[Path]:
    """The upgrade stack's logs, ledger and database; kept when a test failed (not under pytest's
    temporary directory, which another run on the machine may rotate away meanwhile)."""
    path = Path(tempfile.mkdtemp(prefix="printcloud-upgrade-"))
    failed_before = request.session.testsfailed
    yield path
    if request.session.testsfailed > failed_before:
        print(f"kept for a look at what failed: {path}")
    else:
        shutil.rmtree(path, ignore_errors=True)
