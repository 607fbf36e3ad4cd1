"""The previous release, as the upgrade tests need it: found by its tag (`v<version>`), or by the
commit `releases.toml` records for it in a checkout without tags, and read from git."""

from __future__ import annotations

import io
import subprocess
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
CORE_MIGRATIONS = "libs/printcloud-core/src/printcloud/core/kafka/sql"
# Where releases kept them before the core was split into packages (1.0.0).
FORMER_CORE_MIGRATIONS = "libs/printcloud-core/src/printcloud/core/sql"
# Every schema, and its service's migrations after core's (each service's app.py applies them so).
SCHEMA_MIGRATIONS = {
    "gateway": "services/api-gateway/src/printcloud/api_gateway/persistence/migrations",
    "jobs": "services/jobs/src/printcloud/jobs/persistence/migrations",
    "devices": "services/devices/src/printcloud/devices/persistence/migrations",
    "webhooks": "services/webhooks/src/printcloud/webhooks/persistence/migrations",
}


@dataclass(frozen=True)
class Release:
    version: str
    commit: str  # as releases.toml records it

    @property
    def tag(self) -> str:
        return f"v{self.version}"


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def current_version() -> str:
    return (ROOT / "VERSION").read_text().strip()


def recorded_releases() -> list[Release]:
    recorded = tomllib.loads((ROOT / "releases.toml").read_text())["release"]
    return [Release(r["version"], r["commit"]) for r in recorded]


def previous_release() -> Release:
    """The newest release before the tree's version (`1.1.0-dev` comes after `1.0.0`)."""
    current = Version(current_version())
    older = [r for r in recorded_releases() if Version(r.version) < current]
    if not older:
        raise LookupError(f"releases.toml records no release before {current_version()}")
    return max(older, key=lambda r: Version(r.version))


def _has_commit(revision: str) -> bool:
    found = subprocess.run(["git", "cat-file", "-e", f"{revision}^{{commit}}"], cwd=ROOT, capture_output=True)
    return found.returncode == 0


def commit_of(release: Release) -> str:
    """The release's commit: its tag's, else the recorded one; a tag that moved away from the
    recorded commit is refused rather than trusted."""
    if _has_commit(release.tag):
        tagged = git("rev-parse", f"{release.tag}^{{commit}}").strip()
        if tagged != release.commit:
            raise LookupError(f"tag {release.tag} is {tagged}, but releases.toml records {release.commit}")
        return tagged
    if _has_commit(release.commit):
        return release.commit
    raise LookupError(
        f"release {release.version} is neither tagged ({release.tag}) nor its recorded commit {release.commit} "
        "in this clone: fetch the tags or the history"
    )


def files_at(commit: str, folder: str) -> dict[str, str]:
    """The `.sql` files of `folder` at `commit`, by name (none when the folder did not exist)."""
    listing = git("ls-tree", "--name-only", f"{commit}:{folder}") if _has_path(commit, folder) else ""
    return {name: git("show", f"{commit}:{folder}/{name}") for name in listing.split() if name.endswith(".sql")}


def core_migrations_at(commit: str) -> dict[str, str]:
    """The core's shared migrations at `commit`, wherever that release kept them."""
    return files_at(commit, CORE_MIGRATIONS) or files_at(commit, FORMER_CORE_MIGRATIONS)


def _has_path(commit: str, path: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=ROOT, capture_output=True).returncode == 0


def export(commit: str, destination: Path) -> None:
    """The release's source tree, as `git archive` writes it, into `destination`."""
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True)
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(destination, filter="data")
