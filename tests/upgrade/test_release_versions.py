"""One version for the release: the VERSION file, every package built from it, the chart, the
image's label and what running processes report; and a chart whose kubeVersion admits only
clusters that serve every API version its templates use."""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import yaml
from packaging.version import Version

from printcloud.core import release
from tests.deploy.chart import CHART, VALUE_SETS, render

ROOT = Path(__file__).resolve().parents[2]
VERSION = (ROOT / "VERSION").read_text().strip()
# Every package of the repository; the root pyproject.toml holds tool settings only.
PACKAGES = [
    ROOT / name
    for name in subprocess.run(
        ["git", "ls-files", "*/pyproject.toml"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
]

# The first Kubernetes minor release serving each API version the chart may render (GA). A new
# kind of manifest adds its line; monitoring.coreos.com comes with the Prometheus Operator.
FIRST_SERVED_IN = {
    "v1": (1, 0),
    "apps/v1": (1, 9),
    "batch/v1": (1, 2),
    "rbac.authorization.k8s.io/v1": (1, 8),
    "networking.k8s.io/v1": (1, 19),
    "policy/v1": (1, 21),
    "autoscaling/v2": (1, 23),
}
CUSTOM_RESOURCES = {"monitoring.coreos.com/v1"}


def test_the_version_file_holds_one_release_version() -> None:
    assert release.SEMVER.match(VERSION), f"VERSION {VERSION!r}: X.Y.Z, X.Y.Z-dev or X.Y.Z-rc.N"


def test_every_package_takes_its_version_from_the_version_file() -> None:
    assert len(PACKAGES) >= 11
    for path in PACKAGES:
        project = tomllib.loads(path.read_text())
        name = project["project"]["name"]
        assert "version" not in project["project"], f"{name}: no version of its own ({path})"
        assert "version" in project["project"].get("dynamic", []), name
        source = project["tool"]["hatch"]["version"]
        assert (path.parent / source["path"]).resolve() == ROOT / "VERSION", name
        assert re.fullmatch(source["pattern"], VERSION), name
        installed = metadata.version(name)
        assert Version(installed) == Version(VERSION), f"{name} installed as {installed}: run `make install`"


def test_running_code_reports_the_version_file() -> None:
    assert release.version() == VERSION


def test_the_chart_and_its_image_are_the_release() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["version"] == VERSION
    assert chart["appVersion"] == VERSION


def test_the_image_is_labelled_with_the_version_file() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'org.opencontainers.image.version="${PRINTCLOUD_VERSION}"' in dockerfile
    assert 'test "$PRINTCLOUD_VERSION" = "$(cat VERSION)"' in dockerfile, "the build refuses another version"


def test_the_changelog_has_a_section_for_the_release_and_one_for_what_comes_after() -> None:
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), flags=re.MULTILINE)
    assert headings[0] == "Unreleased"
    released = [h.split()[0] for h in headings[1:]]
    if "-" not in VERSION:
        assert released[0] == VERSION, "a release's version has its section, first under Unreleased"
    else:
        base = VERSION.split("-")[0]
        assert all(Version(v) < Version(base) for v in released), "a development version comes after every release"


def _kube_floor() -> tuple[int, int]:
    constraint = yaml.safe_load((CHART / "Chart.yaml").read_text())["kubeVersion"]
    match = re.fullmatch(r">=\s*(\d+)\.(\d+)\.0-0", constraint)
    assert match, f"kubeVersion {constraint!r}: one floor, '>=X.Y.0-0' (the -0 admits providers' pre-release tags)"
    return int(match[1]), int(match[2])


def test_kube_version_is_the_oldest_cluster_serving_every_api_the_chart_renders() -> None:
    used = {m["apiVersion"] for values in VALUE_SETS.values() for m in render(values)} - CUSTOM_RESOURCES
    unknown = used - set(FIRST_SERVED_IN)
    assert not unknown, f"add the first Kubernetes release serving {sorted(unknown)} to FIRST_SERVED_IN"
    needed = max(FIRST_SERVED_IN[api] for api in used)
    assert _kube_floor() == needed, f"the templates need Kubernetes {needed[0]}.{needed[1]} or later"
