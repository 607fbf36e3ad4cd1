"""Each multi-word public field name is spelled in one server source: the contract models.

A name spelled again elsewhere (a hand-written dict, a key read from untyped JSON, a field of
another model) is a second definition that can drift from the model. What counts is string
literals and declared fields, not docstrings (the document's prose) or comments. The contract's model modules are one
source, since models share names (`createdAt`). The agent protocol is a contract of its own and
the generated gRPC stubs are not written by hand, so neither is read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from pydantic import BaseModel

from printcloud.contracts import events, pairing, requests, resources, webhooks

ROOT = Path(__file__).resolve().parents[3]
CONTRACT = ROOT / "libs/printcloud-contracts/src/printcloud/contracts"
PUBLIC_MODULES: tuple[ModuleType, ...] = (resources, webhooks, pairing, events, requests)
CONTRACT_MODULES = frozenset(CONTRACT / f"{module.__name__.rsplit('.', 1)[1]}.py" for module in PUBLIC_MODULES) | {
    CONTRACT / "options.py"
}

SOURCES = ("services/*/src/**/*.py", "libs/printcloud-core/src/**/*.py", "libs/printcloud-contracts/src/**/*.py")


def _public_names() -> set[str]:
    names = set()
    for module in PUBLIC_MODULES:
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module.__name__:
                names |= {info.alias or name for name, info in value.model_fields.items()}
    return {name for name in names if re.search("[a-z][A-Z]", name)}


def _server_sources() -> Iterator[Path]:
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            if "printcloud/v1" not in path.as_posix():
                yield path


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _spelled(path: Path) -> str:
    """The file's spellings of public names: string literals (docstrings aside) and the fields its
    classes declare. A typed read or keyword of a contract model (`body.printerId`) is no second
    spelling: mypy checks it against the model."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    words: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.append(node.value)
        elif isinstance(node, ast.ClassDef):
            fields = (item.target for item in node.body if isinstance(item, ast.AnnAssign))
            words += [field.id for field in fields if isinstance(field, ast.Name)]
    return "\n".join(words)


def test_each_public_field_name_is_spelled_in_one_server_source() -> None:
    names = _public_names()
    assert {"printerId", "createdAt", "stateReasons", "disabledReason", "maxUses"} <= names
    sites: dict[str, set[str]] = {name: set() for name in names}
    for path in _server_sources():
        text = _spelled(path)
        source = "the contract" if path in CONTRACT_MODULES else path.relative_to(ROOT).as_posix()
        for name in names:
            if re.search(rf"\b{name}\b", text):
                sites[name].add(source)
    spelled_again = {name: sorted(found) for name, found in sites.items() if len(found) > 1}
    assert spelled_again == {}
