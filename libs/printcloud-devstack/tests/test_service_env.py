"""The dev stack hands each service only the variables its settings read."""

from __future__ import annotations

import pytest

from printcloud.devstack.service_env import SETTINGS_BY_MODULE, for_service, overrides_from, refuse_unknown
from printcloud.devstack.stack import SERVICES


def test_every_service_of_the_stack_has_its_settings_class() -> None:
    assert {module for _, module in SERVICES} == set(SETTINGS_BY_MODULE)


def test_a_service_gets_only_its_own_settings_and_every_other_variable() -> None:
    env = {"PRINTCLOUD_GRPC_LISTEN": "127.0.0.1:1", "PRINTCLOUD_LOG_LEVEL": "DEBUG", "PATH": "/bin"}
    assert for_service("printcloud.dispatcher", env) == {"PRINTCLOUD_LOG_LEVEL": "DEBUG", "PATH": "/bin"}
    assert for_service("printcloud.jobs", env) == env


def test_the_token_secret_goes_to_the_agent_gateway_alone() -> None:
    env = {"PRINTCLOUD_FILE_TOKEN_SECRET": "x" * 40}
    holders = [module for module in SETTINGS_BY_MODULE if for_service(module, env)]
    assert holders == ["printcloud.agent_gateway"]


def test_a_variable_no_service_reads_is_refused() -> None:
    refuse_unknown(["PRINTCLOUD_EGRESS_ALLOWLIST", "HOME"], SETTINGS_BY_MODULE)
    with pytest.raises(ValueError, match="no PrintCloud service reads PRINTCLOUD_EGRES_ALLOWLIST"):
        refuse_unknown(["PRINTCLOUD_EGRES_ALLOWLIST"], SETTINGS_BY_MODULE)


def test_the_stacks_own_variables_are_not_for_services() -> None:
    environ = {"PRINTCLOUD_DEVSTACK_POSTGRES_URL": "postgresql://x", "PRINTCLOUD_LOG_LEVEL": "DEBUG", "HOME": "/"}
    assert overrides_from(environ) == {"PRINTCLOUD_LOG_LEVEL": "DEBUG"}
    refuse_unknown(environ, SETTINGS_BY_MODULE)
