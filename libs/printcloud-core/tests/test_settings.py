"""Settings refuse what they do not know and start without no secret."""

from __future__ import annotations

import pytest

from printcloud.core.settings import CommonSettings, EgressSettings


class Example(CommonSettings):
    answer_timeout_seconds: float = 10.0
    signing_secret: str


def _refusal(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], settings: type[CommonSettings]) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as refused:
        settings.load()
    return str(refused.value)


def test_a_misspelt_variable_is_refused_with_the_name_it_resembles(monkeypatch: pytest.MonkeyPatch) -> None:
    message = _refusal(
        monkeypatch, {"PRINTCLOUD_SIGNING_SECRET": "s" * 40, "PRINTCLOUD_ANSWER_TIMEOUT_SECONDZ": "3"}, Example
    )
    assert message == (
        "refusing to start: PRINTCLOUD_ANSWER_TIMEOUT_SECONDZ is not a setting of this process"
        " (did you mean PRINTCLOUD_ANSWER_TIMEOUT_SECONDS?)"
    )


def test_a_setting_of_another_service_is_refused_too(monkeypatch: pytest.MonkeyPatch) -> None:
    message = _refusal(monkeypatch, {"PRINTCLOUD_SIGNING_SECRET": "s" * 40, "PRINTCLOUD_GRPC_LISTEN": ":1"}, Example)
    assert "PRINTCLOUD_GRPC_LISTEN is not a setting of this process" in message


def test_a_setting_without_default_must_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _refusal(monkeypatch, {}, Example) == "refusing to start: PRINTCLOUD_SIGNING_SECRET must be set"
    assert Example.required_variables() == {"PRINTCLOUD_SIGNING_SECRET"}


def test_known_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRINTCLOUD_SIGNING_SECRET", "s" * 40)
    monkeypatch.setenv("PRINTCLOUD_ANSWER_TIMEOUT_SECONDS", "2.5")
    assert Example.load().answer_timeout_seconds == 2.5


def test_a_bad_value_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    message = _refusal(monkeypatch, {"PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32, 10.0.0.0/99"}, EgressSettings)
    assert message == "refusing to start: PRINTCLOUD_EGRESS_ALLOWLIST: '10.0.0.0/99' is not a network in CIDR form"
