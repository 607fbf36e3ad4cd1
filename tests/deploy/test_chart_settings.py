"""Every container gets exactly the settings its service reads: each PRINTCLOUD_* variable the
chart sets is a field of that service's Settings class (a misspelt one would be ignored, or refused
by strict settings), every required field is set, and secrets come from Secrets."""

from __future__ import annotations

import importlib

import pytest
from pydantic_settings import BaseSettings

from tests.deploy.chart import OPERATORS_CONTAINERS, REQUIRED, VALUE_SETS, containers, env_of, render

SETTINGS_OF_MODULE = {
    "printcloud.api_gateway": "printcloud.api_gateway.settings:Settings",
    "printcloud.agent_gateway": "printcloud.agent_gateway.settings:Settings",
    "printcloud.jobs": "printcloud.jobs.settings:Settings",
    "printcloud.devices": "printcloud.devices.settings:Settings",
    "printcloud.webhooks": "printcloud.webhooks.settings:Settings",
    "printcloud.dispatcher": "printcloud.dispatcher.settings:Settings",
    "printcloud.virtual_fleet": "printcloud.virtual_fleet.settings:Settings",
    "printcloud.core.commands.create_topics": "printcloud.core.commands.create_topics:TopicsSettings",
}
# Runs in the image but reads no setting (the `helm test` check).
NO_SETTINGS = {"printcloud.core.commands.smoke_check"}
SECRET_WORDS = ("secret", "password", "database_url")


def settings_class(module: str) -> type[BaseSettings]:
    path, _, name = SETTINGS_OF_MODULE[module].partition(":")
    settings: type[BaseSettings] = getattr(importlib.import_module(path), name)
    return settings


def run_containers(values: dict) -> list[tuple[str, str, dict]]:
    """(where, module, container) for every container of every workload the values render."""
    found = []
    for manifest in render(values):
        if manifest["kind"] not in ("Deployment", "Job", "Pod"):
            continue
        for container in containers(manifest):
            if container["name"] in OPERATORS_CONTAINERS:
                continue
            command = container["command"]
            assert command[:2] == ["python", "-m"], container["name"]
            found.append((f"{manifest['metadata']['name']}/{container['name']}", command[2], container))
    return found


@pytest.mark.parametrize("value_set", sorted(VALUE_SETS))
def test_every_variable_is_a_setting_of_its_service_and_every_required_one_is_set(value_set: str) -> None:
    checked = 0
    for where, module, container in run_containers(VALUE_SETS[value_set]):
        variables = {name for name in env_of(container) if name.startswith("PRINTCLOUD_")}
        if module in NO_SETTINGS:
            assert not variables, where
            continue
        settings = settings_class(module)
        prefix = str(settings.model_config.get("env_prefix", "")).upper()
        fields = {prefix + field.upper(): info for field, info in settings.model_fields.items()}
        unknown = variables - fields.keys()
        assert not unknown, f"{where} ({module}) sets variables its settings do not have: {sorted(unknown)}"
        missing = {name for name, info in fields.items() if info.is_required()} - variables
        assert not missing, f"{where} ({module}) leaves required settings unset: {sorted(missing)}"
        for name in variables:
            if any(word in name.lower() for word in SECRET_WORDS):
                assert "secretKeyRef" in env_of(container)[name].get("valueFrom", {}), f"{where}: {name} in clear"
        checked += 1
    assert checked >= 7


def test_only_the_agent_gateway_gets_the_file_token_secret() -> None:
    holders = {
        module
        for _, module, container in run_containers(REQUIRED)
        if "PRINTCLOUD_FILE_TOKEN_SECRET" in env_of(container)
    }
    assert holders == {"printcloud.agent_gateway"}
    agent_gateway = next(c for _, m, c in run_containers(REQUIRED) if m == "printcloud.agent_gateway")
    assert env_of(agent_gateway)["PRINTCLOUD_FILE_TOKEN_SECRET"]["valueFrom"]["secretKeyRef"] == {
        "name": "agent-files",
        "key": "secret",
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({**REQUIRED, "postgres": {"existingSecret": ""}}, "postgres.existingSecret is required"),
        (
            {**REQUIRED, "agentFileTokenSecret": {"existingSecret": ""}},
            "agentFileTokenSecret.existingSecret is required",
        ),
        ({**REQUIRED, "internalAuthSecret": {"existingSecret": ""}}, "internalAuthSecret.existingSecret is required"),
        (
            {**REQUIRED, "kafka": {"securityProtocol": "SASL_SSL", "sasl": {"mechanism": "PLAIN"}}},
            "kafka.sasl.existingSecret is required",
        ),
        (
            {**REQUIRED, "kafka": {"securityProtocol": "SASL_PLAINTEXT", "sasl": {"existingSecret": "login"}}},
            "kafka.sasl.mechanism is required",
        ),
    ],
)
def test_a_secret_not_named_fails_the_render_with_what_to_do(values: dict, message: str) -> None:
    with pytest.raises(Exception, match=message):
        render(values)
