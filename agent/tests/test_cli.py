import json
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

from printcloud.agent import cli


def test_enroll_posts_the_hostname_and_writes_a_private_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sent: dict[str, Any] = {}

    def fake_post(url: str, *, json: dict[str, str], headers: dict[str, str]) -> httpx.Response:
        sent.update(url=url, body=json, headers=headers)
        answer = {"computerId": "c-1", "credential": "cred-secret", "agentGatewayUrl": "http://agents.test"}
        return httpx.Response(201, json=answer)

    monkeypatch.setattr(httpx, "post", fake_post)
    path = tmp_path / "conf" / "agent.json"
    code = cli.main(
        ["--config", str(path), "enroll", "--server", "http://api.test/", "--api-key", "k", "--name", "Desk"]
    )
    assert code == 0
    assert sent["url"] == "http://api.test/v1/agent/enroll"
    assert sent["body"]["name"] == "Desk" and sent["body"]["hostname"]
    assert sent["headers"] == {"Authorization": "Bearer k"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["credential"] == "cred-secret"
    assert "cred-secret" not in capsys.readouterr().out


def test_printers_prints_the_virtual_printers_without_connecting(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["printers", "--backend", "virtual"]) == 0
    printers = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in printers] == ["virtual-office", "virtual-label", "virtual-windows", "virtual-photo"]


def test_status_hides_the_credential(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agent.json"
    path.write_text(
        json.dumps(
            {"serverUrl": "a", "agentGatewayUrl": "http://127.0.0.1:9", "computerId": "c", "credential": "s3cret"}
        )
    )
    assert cli.main(["--config", str(path), "status"]) == 1  # nothing listens on port 9
    shown = json.loads(capsys.readouterr().out)
    assert shown == {
        "serverUrl": "a",
        "agentGatewayUrl": "http://127.0.0.1:9",
        "computerId": "c",
        "gatewayReachable": False,
    }
