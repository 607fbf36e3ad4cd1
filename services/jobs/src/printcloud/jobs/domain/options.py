"""Filling a job's options from its printer's `defaultOptions`.

The option rules themselves (names, types, ranges) live in `printcloud.contracts.option_checks`,
shared with the devices service, which checks a printer's `defaultOptions` the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from printcloud.contracts.option_checks import OPTION_CHECKS


def with_defaults(options: Mapping[str, Any], defaults: object) -> dict[str, Any]:
    """`options` plus each omitted option taken from the printer's `defaultOptions`.

    A default that is unknown or out of range is skipped rather than failing the job: the caller
    did not send it, and an agent may report defaults this version does not know.
    """
    merged = dict(options)
    if not isinstance(defaults, dict):
        return merged
    for name, value in defaults.items():
        check = OPTION_CHECKS.get(name)
        if name not in merged and check is not None and check(value) is None:
            merged[name] = value
    return merged
