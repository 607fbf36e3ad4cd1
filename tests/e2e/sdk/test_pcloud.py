"""The `pcloud` tool as a user runs it: log in, list printers, print and wait, and forward the
feed's events, signed, to a local receiver that verifies them with `standardwebhooks`."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import threading
from pathlib import Path

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from printcloud_sdk import PrintCloud
from tests.e2e.client import MINIMAL_PDF, eventually
from tests.e2e.sdk.conftest import ApiUser
from tests.support.receiver import Answer, Received, Receiver

PCLOUD = str(Path(sys.executable).with_name("pcloud"))


def pcloud(*args: str, env: dict[str, str], stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PCLOUD, *args], env=env, input=stdin, capture_output=True, text=True, timeout=timeout)


def test_login_keeps_the_key_in_a_private_file_and_never_shows_it(api_user: ApiUser, tmp_path: Path) -> None:
    saved = tmp_path / "config.json"
    env = {**api_user.env(PRINTCLOUD_CONFIG=str(saved))}
    del env["PRINTCLOUD_API_KEY"], env["PRINTCLOUD_BASE_URL"]
    refused = pcloud("login", "--base-url", api_user.base_url, "--api-key-stdin", env=env, stdin="svc_test_wrong\n")
    assert refused.returncode == 1 and "refused" in refused.stderr and not saved.exists()
    login = pcloud("login", "--base-url", api_user.base_url, "--api-key-stdin", env=env, stdin=api_user.key + "\n")
    assert login.returncode == 0, login.stderr
    assert "SDK-users (test mode)" in login.stdout
    assert api_user.key not in login.stdout + login.stderr
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert json.loads(saved.read_text())["api_key"] == api_user.key
    listed = pcloud("printers", env=env)
    assert listed.returncode == 0 and "virtual-office" in listed.stdout
    # The variables win over the saved login.
    overridden = pcloud("whoami", env={**env, "PRINTCLOUD_API_KEY": "svc_test_wrong"})
    assert overridden.returncode == 1 and "unauthorized" in overridden.stderr
    assert pcloud("logout", env=env).returncode == 0 and not saved.exists()


def test_print_wait_exits_0_once_done_and_1_with_the_reason_otherwise(api_user: ApiUser, tmp_path: Path) -> None:
    document = tmp_path / "report.pdf"
    document.write_bytes(MINIMAL_PDF)
    args = ("print", str(document), "--printer", "virtual-office", "--option", "duplex=long-edge", "--copies", "2")
    done = pcloud(*args, "--wait", env=api_user.env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("done")
    failed = pcloud(*args, "--title", "[fail] report", "--wait", env=api_user.env())
    assert failed.returncode == 1 and "ended error" in failed.stderr
    refused = pcloud(
        "print", str(document), "--printer", "virtual-office", "--option", "staple=yes", env=api_user.env()
    )
    assert refused.returncode == 1 and "invalid_request" in refused.stderr and "request req_" in refused.stderr
    listed = pcloud("jobs", "--state", "error", "--printer", "virtual-office", env=api_user.env())
    assert "[fail] report" in listed.stdout


def test_webhooks_listen_delivers_each_event_signed_to_a_local_receiver(api_user: ApiUser, tmp_path: Path) -> None:
    secret: list[str] = []
    verified: list[dict[str, object]] = []
    refused: list[str] = []

    def verify(request: Received, _: int) -> Answer:
        try:
            verified.append(Webhook(secret[0]).verify(request.body, request.headers))
        except WebhookVerificationError as error:  # a real receiver answers 400 to anything unverifiable
            refused.append(repr(error))
            return Answer(status=400)
        return Answer()

    with Receiver(verify) as receiver:
        listener = subprocess.Popen(
            [PCLOUD, "webhooks", "listen", "--forward-to", receiver.url("/hooks"), "--poll-interval", "0.2"],
            env=api_user.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert listener.stdout is not None
            lines = [listener.stdout.readline(), listener.stdout.readline()]
            secret.append(lines[1].strip().rsplit(" ", 1)[-1])
            assert secret[0].startswith("whsec_"), lines
            output: list[str] = []
            threading.Thread(target=lambda: output.extend(listener.stdout or ()), daemon=True).start()
            document = tmp_path / "hook.pdf"
            document.write_bytes(MINIMAL_PDF)
            with PrintCloud(api_user.key, base_url=api_user.base_url) as client:
                job = client.print_jobs.print_file(document, printer="virtual-office")

            def job_events() -> list[str]:
                return [str(event["type"]) for event in verified if event["data"]["id"] == job.id]  # type: ignore[index]

            eventually(lambda: "printjob.done" in job_events(), timeout=60, what="printjob.done forwarded")
        finally:
            listener.terminate()
            listener.wait(timeout=10)
    assert not refused, refused
    assert job_events() == [
        "printjob.queued",
        "printjob.sent",
        "printjob.received",
        "printjob.printing",
        "printjob.done",
    ]
    forwarded = receiver.received("/hooks")
    assert {request.headers["webhook-id"] for request in forwarded} >= {str(event["id"]) for event in verified}


def _running(*args: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], list[str], list[str]]:
    """`pcloud ARGS` in the background, and the lines it prints (standard output, error) as they come."""
    process = subprocess.Popen([PCLOUD, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list[str] = []
    err: list[str] = []
    threading.Thread(target=lambda: out.extend(process.stdout or ()), daemon=True).start()
    threading.Thread(target=lambda: err.extend(process.stderr or ()), daemon=True).start()
    return process, out, err


def test_events_tail_and_jobs_watch_show_each_new_change(api_user: ApiUser, tmp_path: Path) -> None:
    tail, events, tail_notes = _running("events", "tail", "--type", "printjob.done", "--json", env=api_user.env())
    watch, changes, watch_notes = _running("jobs", "--watch", "--limit", "1", env=api_user.env())
    try:
        # Both follow from the newest event when they start: print once both say they follow.
        eventually(
            lambda: all(any("Following" in note for note in notes) for notes in (tail_notes, watch_notes)),
            what="both tools following",
        )
        document = tmp_path / "watched.pdf"
        document.write_bytes(MINIMAL_PDF)
        with PrintCloud(api_user.key, base_url=api_user.base_url) as client:
            job = client.print_jobs.print_file(document, printer="virtual-office")
        eventually(lambda: any(job.id in line for line in events), timeout=60, what="printjob.done in events tail")
        eventually(lambda: any(job.id in line and " done " in line for line in changes), what="the job done in --watch")
    finally:
        for process in (tail, watch):
            process.terminate()
            process.wait(timeout=10)
    done = [json.loads(line) for line in events if job.id in line]
    assert [event["type"] for event in done] == ["printjob.done"] and done[0]["data"]["title"] == "watched.pdf"
    assert [line.split()[3] for line in changes if job.id in line][-1] == "done"
