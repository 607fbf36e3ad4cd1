"""The agent's distribution (`make agent-dist`) for tests: the files in dist/agent when they are
newer than everything they are built from, else a fresh build into the test's own folder, and a
`python3` of the system's (not this virtualenv's) to run the single file with."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist" / "agent"
WHEELS = ROOT / ".venv" / "agent-wheels"
BUILD = ROOT / "agent" / "packaging" / "build.py"
BUILT_FROM = (ROOT / "agent" / "src", ROOT / "libs" / "printcloud-protocol" / "src", ROOT / "agent" / "packaging")


@dataclass(frozen=True)
class AgentDist:
    pex: Path
    deb: Path


def _newest_source() -> float:
    return max(path.stat().st_mtime for folder in BUILT_FROM for path in folder.rglob("*") if path.is_file())


def _found(folder: Path) -> AgentDist | None:
    pex = folder / "printcloud-agent.pex"
    debs = sorted(folder.glob("printcloud-agent_*_all.deb"))
    if not pex.exists() or len(debs) != 1:
        return None
    return AgentDist(pex, debs[0])


def agent_dist(scratch: Path) -> AgentDist:
    built = _found(DIST)
    if built is not None and min(built.pex.stat().st_mtime, built.deb.stat().st_mtime) >= _newest_source():
        return built
    if not (WHEELS / ".downloaded").exists():
        raise AssertionError("the agent's wheels are not fetched: run `make agent-dist` once")
    subprocess.run(
        [sys.executable, str(BUILD), "build", "--wheels", str(WHEELS), "--out", str(scratch)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    fresh = _found(scratch)
    assert fresh is not None, f"the build left no PEX and .deb in {scratch}"
    return fresh


def system_python() -> str:
    """A python3 (3.11 or later) outside this virtualenv, so the single file proves it needs nothing
    installed: Debian's on the project's machines."""
    for candidate in ("/usr/bin/python3", shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")):
        if candidate and Path(candidate).exists():
            version = subprocess.run([candidate, "--version"], capture_output=True, text=True, check=True).stdout
            found = re.search(r"(\d+)\.(\d+)", version)
            if found and (int(found.group(1)), int(found.group(2))) >= (3, 11):
                return candidate
    raise AssertionError("no system python3 of version 3.11 or later to run the single-file agent with")
