"""Who may import whom: the servers speak the protocol and never load the agent customers install
(the virtual fleet, which runs it, excepted); the protocol loads nothing of the servers."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_IMPORT = re.compile(r"^\s*(?:from|import)\s+(printcloud\.\w+)", re.MULTILINE)


def _imported(folder: Path) -> set[str]:
    return {name for path in folder.rglob("*.py") for name in _IMPORT.findall(path.read_text())}


def test_no_server_imports_the_agent() -> None:
    servers = [path for path in (ROOT / "services").iterdir() if path.name != "virtual-fleet"]
    assert servers, "the services were found"
    for server in servers:
        assert "printcloud.agent" not in _imported(server / "src"), server.name


def test_the_protocol_imports_only_itself() -> None:
    imported = _imported(ROOT / "libs/printcloud-protocol/src")
    assert imported == {"printcloud.protocol"}
