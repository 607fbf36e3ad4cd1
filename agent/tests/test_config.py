import json
import stat
from pathlib import Path

import pytest

from printcloud.agent.config import CONFIG_ENV, AgentConfig, default_config_path, load_config, save_config

CONFIG = AgentConfig("https://api.example", "https://agents.example", "c-1", "secret-credential")


def test_config_file_is_private_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "printcloud-agent" / "agent.json"
    save_config(CONFIG, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {
        "serverUrl": "https://api.example",
        "agentGatewayUrl": "https://agents.example",
        "computerId": "c-1",
        "credential": "secret-credential",
    }
    assert load_config(path) == CONFIG


def test_rewriting_a_loose_file_tightens_it(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    path.write_text("{}")
    path.chmod(0o644)
    save_config(CONFIG, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_public_view_hides_the_credential() -> None:
    assert "credential" not in CONFIG.public_json()
    assert "secret-credential" not in json.dumps(CONFIG.public_json())


def test_config_path_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "x.json"))
    assert default_config_path() == tmp_path / "x.json"
    monkeypatch.delenv(CONFIG_ENV)
    assert default_config_path() == Path.home() / ".config" / "printcloud-agent" / "agent.json"
