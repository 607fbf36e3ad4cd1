"""The release this code belongs to.

One version names the image, the chart and every service: the VERSION file at the repository's
root, which each package's build reads (docs/internals.md, "Releases"). It is written as SemVer,
as Helm and image tags want it (`1.0.0`, `1.1.0-dev`, `1.1.0-rc.1`). Hatchling keeps that text in
the packages' metadata (only wheel file names take Python's normal form, `1.1.0.dev0`); a package
built by a tool that normalizes is read back as SemVer all the same.
"""

from __future__ import annotations

import functools
import re
from importlib import metadata

# The forms a VERSION file may take, and the same in Python's normal form.
SEMVER = re.compile(r"^(\d+\.\d+\.\d+)(?:-dev|-rc\.(\d+))?$")
_PYTHON_FORM = re.compile(r"^(\d+\.\d+\.\d+)(?:\.dev0|rc(\d+))?$")


def semver(python_version: str) -> str:
    """A package's version as the release names it: `1.1.0-dev`, also when given as `1.1.0.dev0`."""
    if SEMVER.match(python_version):
        return python_version
    match = _PYTHON_FORM.match(python_version)
    if match is None:
        raise ValueError(f"{python_version!r} is not a PrintCloud release version")
    base, candidate = match.groups()
    if python_version.endswith(".dev0"):
        return f"{base}-dev"
    return f"{base}-rc.{candidate}" if candidate else base


@functools.cache
def version() -> str:
    """This installation's release, from the metadata its packages were built with."""
    return semver(metadata.version("printcloud-core"))
