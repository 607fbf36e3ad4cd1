"""Which `PRINTCLOUD_*` variables each service process of the stack gets.

Services refuse variables that are not their settings (`core.settings`), so the stack hands each
one only what its settings class reads, and refuses a variable that no service reads: a misspelt
override in a test or in the shell that runs `make dev` fails loudly instead of doing nothing.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from functools import cache

from printcloud.core.settings import ENV_PREFIX, CommonSettings

# The stack's own variables (read by printcloud.devstack), never handed to a service.
DEVSTACK_PREFIX = f"{ENV_PREFIX}DEVSTACK_"

SETTINGS_BY_MODULE: dict[str, str] = {
    "printcloud.devices": "printcloud.devices.settings:Settings",
    "printcloud.jobs": "printcloud.jobs.settings:Settings",
    "printcloud.webhooks": "printcloud.webhooks.settings:Settings",
    "printcloud.agent_gateway": "printcloud.agent_gateway.settings:Settings",
    "printcloud.dispatcher": "printcloud.dispatcher.settings:Settings",
    "printcloud.api_gateway": "printcloud.api_gateway.settings:Settings",
    "printcloud.virtual_fleet": "printcloud.virtual_fleet.settings:Settings",
}


@cache
def settings_class(module: str) -> type[CommonSettings]:
    module_name, _, class_name = SETTINGS_BY_MODULE[module].partition(":")
    found: type[CommonSettings] = getattr(importlib.import_module(module_name), class_name)
    return found


def for_service(module: str, env: Mapping[str, str], python: str = sys.executable) -> dict[str, str]:
    """`env` less the PrintCloud variables the service run as `module` by `python` does not read."""
    known = variable_names(module, python)
    return {name: value for name, value in env.items() if not name.startswith(ENV_PREFIX) or name in known}


def variable_names(module: str, python: str = sys.executable) -> frozenset[str]:
    """What the service `module` reads, in this interpreter's release or in `python`'s."""
    if python == sys.executable:
        return settings_class(module).variable_names()
    return _variables_read_by(python).get(module, frozenset())


# Run by another release's interpreter: the variables each service module's settings read there.
_ASK_SETTINGS = """
import importlib, json, sys
found = {}
for module, path in json.loads(sys.argv[1]).items():
    module_name, _, class_name = path.partition(":")
    try:
        found[module] = sorted(getattr(importlib.import_module(module_name), class_name).variable_names())
    except ImportError:
        pass
print(json.dumps(found))
"""


@cache
def _variables_read_by(python: str) -> dict[str, frozenset[str]]:
    answer = subprocess.run(
        [python, "-c", _ASK_SETTINGS, json.dumps(SETTINGS_BY_MODULE)], capture_output=True, text=True, check=True
    )
    return {module: frozenset(names) for module, names in json.loads(answer.stdout).items()}


def overrides_from(environ: Mapping[str, str]) -> dict[str, str]:
    """The PrintCloud settings in the stack's own environment, meant for its services."""
    return {name: value for name, value in environ.items() if is_service_variable(name)}


def is_service_variable(name: str) -> bool:
    return name.startswith(ENV_PREFIX) and not name.startswith(DEVSTACK_PREFIX)


def refuse_unknown(names: Iterable[str], modules: Iterable[str]) -> None:
    known = frozenset().union(*(settings_class(module).variable_names() for module in modules))
    unknown = sorted(name for name in names if is_service_variable(name) and name not in known)
    if unknown:
        raise ValueError(f"no PrintCloud service reads {', '.join(unknown)}")
