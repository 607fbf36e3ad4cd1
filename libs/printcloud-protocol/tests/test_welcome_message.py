"""The gateway's `welcome` across releases (PROTOCOL.md §3): `serverVersion` is optional both ways."""

from __future__ import annotations

import json

import pytest

from printcloud.protocol.messages import Welcome
from printcloud.protocol.parsing import parse_gateway_message

WELCOME = {"type": "welcome", "computerId": "c-1", "heartbeatSeconds": 30}


def _welcome(**changes: object) -> Welcome:
    parsed = parse_gateway_message(json.dumps({**WELCOME, **changes}))
    assert isinstance(parsed, Welcome)
    return parsed


def test_a_gateway_names_its_release() -> None:
    assert _welcome(serverVersion="1.1.0-dev").server_version == "1.1.0-dev"
    sent = Welcome(computer_id="c-1", heartbeat_seconds=30, server_version="1.0.0").to_wire()
    assert sent == {**WELCOME, "serverVersion": "1.0.0"}


def test_a_welcome_of_a_gateway_before_releases_has_none() -> None:
    welcome = _welcome()
    assert (welcome.computer_id, welcome.heartbeat_seconds, welcome.server_version) == ("c-1", 30, None)
    assert "serverVersion" not in Welcome(computer_id="c-1", heartbeat_seconds=30).to_wire()


@pytest.mark.parametrize("value", [1, None, ["1.0.0"], {"v": 1}])
def test_a_version_that_is_not_text_is_ignored_not_refused(value: object) -> None:
    assert _welcome(serverVersion=value).server_version is None


def test_fields_of_a_later_release_are_ignored() -> None:
    welcome = _welcome(serverVersion="2.0.0", maintenanceWindow={"from": "02:00"})
    assert welcome.server_version == "2.0.0"
