from pathlib import Path

from printcloud.agent.ledger import ACCEPTED, CANCELLED, INTERRUPTED_MESSAGE, JobLedger


def test_seen_jobs_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    ledger = JobLedger(path)
    ledger.record("done-job", "done", "ok")
    ledger.acknowledge("done-job", "done")
    ledger.record("cancelled-job", CANCELLED)
    reloaded = JobLedger(path)
    assert "done-job" in reloaded and "cancelled-job" in reloaded
    assert reloaded.to_report_again() == {}


def test_a_job_interrupted_by_a_restart_ends_in_error_and_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    ledger = JobLedger(path)
    ledger.record("mid-print", "printing")
    ledger.record("downloading", ACCEPTED)
    again = JobLedger(path).to_report_again()
    assert set(again) == {"mid-print", "downloading"}
    assert {entry.state for entry in again.values()} == {"error"}
    assert {entry.message for entry in again.values()} == {INTERRUPTED_MESSAGE}


def test_finished_jobs_are_reported_again_until_acknowledged() -> None:
    ledger = JobLedger()
    ledger.record("a", "done")
    ledger.record("b", "printing")
    ledger.record("c", "error", "boom")
    ledger.acknowledge("a", "done")
    assert set(ledger.to_report_again()) == {"b", "c"}
    ledger.acknowledge("c", "printing")  # an older state's acknowledgement
    ledger.acknowledge("b", "printing")  # unfinished: reported again on every connection anyway
    assert set(ledger.to_report_again()) == {"b", "c"}
    ledger.acknowledge("c", "error")
    assert set(ledger.to_report_again()) == {"b"}


def test_unreadable_ledger_starts_empty(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    path.write_text("not json")
    assert "x" not in JobLedger(path)
