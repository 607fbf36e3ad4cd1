"""Every service package has the one shape of docs/internals.md ("The service shape"): a module
outside its layers is code no layering contract holds, and a process started its own way skips
the start every other process shares."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(path for path in ROOT.glob("services/*/src/printcloud/*") if path.is_dir())
TOP_MODULES = frozenset({"__init__.py", "__main__.py", "app.py", "settings.py"})
LAYERS = frozenset({"domain", "use_cases", "persistence", "transport", "workers"})
PROCESS_STARTS = {
    "printcloud.core.process.service_process": "ServiceProcess",
    "printcloud.core.process.bare_process": "BareProcess",
}


def _name(package: Path) -> str:
    return package.relative_to(ROOT / "services").as_posix()


def test_every_service_is_found() -> None:
    assert {package.name for package in PACKAGES} >= {"api_gateway", "jobs", "devices", "webhooks", "dispatcher"}


@pytest.mark.parametrize("package", PACKAGES, ids=_name)
def test_a_service_holds_only_its_entry_modules_and_layers(package: Path) -> None:
    files = {path.name for path in package.iterdir() if path.is_file()}
    folders = {path.name for path in package.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert files - TOP_MODULES == set(), f"{_name(package)}: modules outside the layers"
    assert folders - LAYERS == set(), f"{_name(package)}: folders that are no layer"
    assert {"__init__.py", "__main__.py", "app.py", "settings.py"} <= files


@pytest.mark.parametrize("package", PACKAGES, ids=_name)
def test_a_service_starts_through_the_shared_process(package: Path) -> None:
    tree = ast.parse((package / "app.py").read_text(encoding="utf-8"))
    imported = {
        (node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    starts = {name for module, name in imported if PROCESS_STARTS.get(module or "") == name}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert starts & used, f"{_name(package)}/app.py starts through neither ServiceProcess nor BareProcess"
