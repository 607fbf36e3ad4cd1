"""The tool's local parts: where the key is kept, and how options are read."""

from __future__ import annotations

import argparse
import stat
from pathlib import Path

import pytest

from printcloud_sdk import cli, config


def test_the_key_is_kept_in_a_file_only_its_owner_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "deep" / "config.json"
    monkeypatch.setenv(config.CONFIG_VARIABLE, str(path))
    monkeypatch.delenv("PRINTCLOUD_API_KEY", raising=False)
    monkeypatch.delenv("PRINTCLOUD_BASE_URL", raising=False)
    path.parent.mkdir()
    path.write_text("{}")
    path.chmod(0o644)  # a file left readable by others is narrowed before the key is written
    config.save("http://127.0.0.1:8080", "svc_test_secret")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert config.load() == config.Credentials("http://127.0.0.1:8080", "svc_test_secret")
    assert "svc_test_secret" not in repr(config.load())
    monkeypatch.setenv("PRINTCLOUD_API_KEY", "svc_test_other")
    assert config.load().api_key == "svc_test_other"
    assert config.forget() and not path.exists()


def test_a_new_config_folder_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(config.CONFIG_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    saved = config.save("http://127.0.0.1:8080", "svc_test_secret")
    assert saved == tmp_path / "printcloud" / "config.json"
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    ("text", "expected"),
    [("copies=2", ("copies", 2)), ("color=false", ("color", False)), ("pages=1-3,5", ("pages", "1-3,5")),
     ("paper=A4", ("paper", "A4")), ("dpi=600x600", ("dpi", "600x600")), ("bin=null", ("bin", "null"))],
)  # fmt: skip
def test_options_are_read_as_numbers_and_booleans_where_they_are(text: str, expected: tuple[str, object]) -> None:
    assert cli._option(text) == expected


def test_a_malformed_option_is_a_usage_error() -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        cli._option("copies")


def test_without_credentials_the_tool_says_how_to_log_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(config.CONFIG_VARIABLE, str(tmp_path / "none.json"))
    monkeypatch.delenv("PRINTCLOUD_API_KEY", raising=False)
    monkeypatch.delenv("PRINTCLOUD_BASE_URL", raising=False)
    assert cli.main(["printers"]) == 2
    assert "pcloud login" in capsys.readouterr().err
