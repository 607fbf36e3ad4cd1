import io
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

    def fake_post(url: str, *, json: dict[str, str], headers: dict[str, str], timeout: float) -> httpx.Response:
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


ENROLLED = {"computerId": "c-2", "credential": "pca_secret", "agentGatewayUrl": "http://agents.test"}


def _answering(monkeypatch: pytest.MonkeyPatch, response: httpx.Response) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    def fake_post(url: str, *, json: dict[str, str], headers: dict[str, str], timeout: float) -> httpx.Response:
        sent.append({"url": url, "body": json, "headers": headers})
        return response

    monkeypatch.setattr(httpx, "post", fake_post)
    return sent


def test_enroll_with_a_pairing_code_sends_no_key_and_writes_the_same_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sent = _answering(monkeypatch, httpx.Response(201, json=ENROLLED))
    path = tmp_path / "agent.json"
    code = cli.main(["--config", str(path), "enroll", "--server", "http://api.test", "--code", "7K4M-9QXP-3T8D"])
    assert code == 0
    [request] = sent
    assert request["url"] == "http://api.test/v1/agent/pair" and request["headers"] == {}
    assert request["body"]["code"] == "7K4M-9QXP-3T8D" and request["body"]["hostname"]
    assert "name" not in request["body"]
    assert json.loads(path.read_text())["credential"] == "pca_secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "pca_secret" not in capsys.readouterr().out


def test_a_code_on_stdin_stays_out_of_the_command_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sent = _answering(monkeypatch, httpx.Response(201, json=ENROLLED))
    monkeypatch.setattr("sys.stdin", io.StringIO("7K4M-9QXP-3T8D\n"))
    args = ["--config", str(tmp_path / "a.json"), "enroll", "--server", "http://api.test", "--code", "-"]
    assert cli.main([*args, "--name", "Till 2"]) == 0
    assert sent[0]["body"]["code"] == "7K4M-9QXP-3T8D" and sent[0]["body"]["name"] == "Till 2"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            httpx.Response(401, json={"error": {"code": "unauthorized", "message": "This pairing code is wrong."}}),
            "enrolment failed: HTTP 401: This pairing code is wrong.",
        ),
        (
            httpx.Response(
                429, json={"error": {"code": "rate_limited", "message": "Too many."}}, headers={"Retry-After": "60"}
            ),
            "enrolment failed: HTTP 429: Too many. (retry in 60 s)",
        ),
        (httpx.Response(502, text="<html>Bad gateway</html>"), "enrolment failed: HTTP 502: <html>Bad gateway</html>"),
    ],
)
def test_a_refused_enrolment_is_one_line_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    response: httpx.Response,
    expected: str,
) -> None:
    _answering(monkeypatch, response)
    path = tmp_path / "agent.json"
    assert cli.main(["--config", str(path), "enroll", "--server", "http://api.test", "--code", "WRONG"]) == 1
    assert capsys.readouterr().err == expected + "\n"
    assert not path.exists()


def test_an_unreachable_server_is_one_line_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Nothing listens on port 9 of loopback: the connection is refused at once.
    args = ["--config", str(tmp_path / "a.json"), "enroll", "--server", "http://127.0.0.1:9", "--code", "X"]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("enrolment failed: cannot reach http://127.0.0.1:9: ") and err.count("\n") == 1


def test_a_code_and_a_key_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["enroll", "--server", "http://api.test", "--code", "C", "--api-key", "K"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


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
