"""Builds the agent's distribution into dist/agent (`make agent-dist`; agent/INSTALL.md):

- `printcloud-agent.pex`: the agent in one file, a PEX zipapp that runs with `python3` 3.11 to
  3.15 on Linux (x86_64, aarch64) and macOS (x86_64, arm64). Everything it needs is inside; the
  only compiled library, pydantic-core, is in it for each of those platforms and versions.
- `printcloud-agent_<version>_all.deb`: that file, the `printcloud-agent` command, the systemd
  unit, and maintainer scripts that make the agent's user and clean up after it.

`download` fetches the pinned wheels (agent/packaging/requirements.txt) for every target from
PyPI once, at install time; `build` then works offline: it locks those wheels, assembles the PEX
from the lock and the agent's sources, and packs the .deb with dpkg-deb.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "agent" / "packaging"
REQUIREMENTS = PACKAGING / "requirements.txt"
SOURCES = (ROOT / "agent" / "src", ROOT / "libs" / "printcloud-protocol" / "src")
PEX_NAME = "printcloud-agent.pex"
ENTRY_POINT = "printcloud.agent.cli:main"

PLATFORMS = ("manylinux2014_x86_64", "manylinux2014_aarch64", "macosx_11_0_arm64", "macosx_10_12_x86_64")
PYTHONS = ("3.11", "3.12", "3.13", "3.14", "3.15")
INTERPRETERS = "CPython>=3.11,<3.16"

# (path in the package, file in agent/packaging, mode)
DEB_FILES = (
    ("usr/bin/printcloud-agent", "debian/printcloud-agent", 0o755),
    ("lib/systemd/system/printcloud-agent.service", "printcloud-agent.service", 0o644),
    ("usr/share/doc/printcloud-agent/INSTALL.md", "../INSTALL.md", 0o644),
)
MAINTAINER_SCRIPTS = ("postinst", "prerm", "postrm")


def agent_version() -> str:
    """The release's version (the VERSION file every package is built from) as Debian spells it: a
    development version sorts before its release (`1.1.0-dev` is `1.1.0~dev`)."""
    return debian_version(release())


def release() -> str:
    """The release as the VERSION file names it (`1.1.0-dev`)."""
    return (ROOT / "VERSION").read_text().strip()


def debian_version(release: str) -> str:
    return release.replace("-", "~")


def _run(*command: str | Path) -> None:
    subprocess.run([str(part) for part in command], check=True)


def _tool(name: str) -> str:
    """A console script of this interpreter's environment (pex, pex3)."""
    return str(Path(sys.executable).with_name(name))


def download(wheels: Path) -> None:
    wheels.mkdir(parents=True, exist_ok=True)
    for platform in PLATFORMS:
        for python in PYTHONS:
            _run(
                sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                "--only-binary=:all:", "--platform", platform, "--python-version", python,
                "--implementation", "cp", "--dest", wheels, "--requirement", REQUIREMENTS,
            )  # fmt: skip


def _pex_platforms() -> list[str]:
    options = []
    for platform in PLATFORMS:
        for python in PYTHONS:
            tag = python.replace(".", "")
            options += ["--platform", f"{platform}-cp-{tag}-cp{tag}"]
    return options


def build_pex(wheels: Path, out: Path, work: Path) -> Path:
    lock = work / "agent.lock"
    _run(
        _tool("pex3"), "lock", "create", "--style", "universal", "--target-system", "linux", "--target-system", "mac",
        "--interpreter-constraint", INTERPRETERS, "--no-pypi", "--find-links", wheels,
        "--requirement", REQUIREMENTS, "--output", lock,
    )  # fmt: skip
    sources = []
    for source in SOURCES:
        copy = work / "sources" / source.parent.name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        sources += ["--sources-directory", str(copy)]
    # Sources carry no package metadata: the agent reads its release from this file instead.
    (work / "sources" / "agent" / "printcloud" / "agent" / "RELEASE").write_text(release() + "\n", encoding="utf-8")
    pex = out / PEX_NAME
    _run(
        _tool("pex"), "--lock", lock, "--no-pypi", *_pex_platforms(), *sources, "--entry-point", ENTRY_POINT,
        "--interpreter-constraint", INTERPRETERS, "--python-shebang", "/usr/bin/env python3", "--output-file", pex,
    )  # fmt: skip
    return pex


def build_deb(pex: Path, out: Path, work: Path) -> Path:
    version = agent_version()
    root = work / "deb"
    files = [("usr/lib/printcloud-agent/" + PEX_NAME, pex, 0o755)]
    files += [(path, PACKAGING / source, mode) for path, source, mode in DEB_FILES]
    for path, source, mode in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        target.chmod(mode)
    control = root / "DEBIAN"
    control.mkdir()
    installed_kib = sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) // 1024 + 1
    template = (PACKAGING / "debian" / "control").read_text()
    (control / "control").write_text(
        template.replace("@VERSION@", version).replace("@INSTALLED_SIZE@", str(installed_kib))
    )
    for script in MAINTAINER_SCRIPTS:
        target = control / script
        shutil.copyfile(PACKAGING / "debian" / script, target)
        target.chmod(0o755)
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    deb = out / f"printcloud-agent_{version}_all.deb"
    # gzip: the PEX inside is compressed already, and xz would spend long on it for nothing.
    _run("dpkg-deb", "--root-owner-group", "-Zgzip", "--build", root, deb)
    return deb


def build(wheels: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agent-dist-") as scratch:
        work = Path(scratch)
        pex = build_pex(wheels, out, work)
        deb = build_deb(pex, out, work)
    for artifact in (pex, deb):
        shown = artifact.relative_to(ROOT) if artifact.is_relative_to(ROOT) else artifact
        print(f"{shown}: {artifact.stat().st_size} bytes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("download", help="fetch the pinned wheels of every target platform (network)")
    fetch.add_argument("--wheels", type=Path, required=True)
    make = commands.add_parser("build", help="build the PEX and the .deb from fetched wheels (offline)")
    make.add_argument("--wheels", type=Path, required=True)
    make.add_argument("--out", type=Path, default=ROOT / "dist" / "agent")
    args = parser.parse_args(argv)
    if args.command == "download":
        download(args.wheels)
    else:
        build(args.wheels, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
