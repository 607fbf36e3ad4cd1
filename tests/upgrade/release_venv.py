"""The previous release, installed in a virtualenv of its own to run its services: its source
exported from git (`git archive` of its commit), its runtime requirements and its packages, as the
image holds them. Kept under .venv/releases/<commit>, so only the first run pays for the install
(pip takes what it can from the machine's cache, at this setup only)."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.upgrade.releases import ROOT, Release, commit_of, export

RELEASES_DIR = ROOT / ".venv" / "releases"
# What the image installs (Dockerfile): every package but the dev stack.
PACKAGES = ("libs/printcloud-core", "libs/printcloud-protocol", "services/*", "agent")


@dataclass(frozen=True)
class InstalledRelease:
    release: Release
    commit: str
    python: str
    seconds_to_install: float  # 0 when it was installed by an earlier run


def installed(release: Release) -> InstalledRelease:
    commit = commit_of(release)
    home = RELEASES_DIR / commit
    home.mkdir(parents=True, exist_ok=True)
    python = home / "venv" / "bin" / "python"
    with (home / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test run may be installing the same release
        if (home / ".installed").exists():
            return InstalledRelease(release, commit, str(python), 0.0)
        started = time.monotonic()
        source = home / "src"
        export(commit, source)
        _run([sys.executable, "-m", "venv", "--clear", str(home / "venv")], source)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        _run([*pip, "-r", "requirements.txt", "-r", "requirements-build.txt"], source)
        packages = sorted(
            str(p) for pattern in PACKAGES for p in source.glob(pattern) if (p / "pyproject.toml").exists()
        )
        _run([*pip, "--no-deps", "--no-build-isolation", *packages], source)
        (home / ".installed").write_text(f"{release.version} {commit}\n")
        return InstalledRelease(release, commit, str(python), round(time.monotonic() - started, 1))


def _run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
