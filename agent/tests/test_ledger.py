import json
from pathlib import Path

from printcloud.agent.ledger import ACCEPTED, CANCELLED, INTERRUPTED_MESSAGE, JOURNAL_SLACK, JobLedger


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


def test_a_change_is_appended_to_the_journal_not_rewritten_into_the_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    ledger = JobLedger(path)
    snapshot = path.read_text()
    ledger.record("a", "printing")
    ledger.record("a", "done", "ok")
    assert path.read_text() == snapshot
    assert len((tmp_path / "jobs.journal").read_text().splitlines()) == 2
    reloaded = JobLedger(path)
    entry = reloaded.get("a")
    assert entry is not None and (entry.state, entry.message) == ("done", "ok")
    # Folded into the snapshot on start: the journal begins again empty.
    assert not (tmp_path / "jobs.journal").exists()
    assert "a" in JobLedger(path)


def test_a_journal_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    ledger = JobLedger(path)
    ledger.record("kept", "done")
    with (tmp_path / "jobs.journal").open("a") as journal:
        journal.write('["torn", {"state": "do')
    reloaded = JobLedger(path)
    assert "kept" in reloaded and "torn" not in reloaded


def test_the_journal_is_folded_once_it_outgrows_the_entries(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    ledger = JobLedger(path)
    for n in range(JOURNAL_SLACK + 10):
        ledger.record("same-job", "printing", f"change {n}")
    ledger.record("same-job", "done", "last")
    assert len((tmp_path / "jobs.journal").read_text().splitlines()) < JOURNAL_SLACK
    assert json.loads(path.read_text())["same-job"]["state"] == "printing"  # the fold's snapshot
    entry = JobLedger(path).get("same-job")
    assert entry is not None and (entry.state, entry.message) == ("done", "last")


def test_a_fold_leaves_everything_in_the_snapshot_that_an_older_agent_reads(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    ledger = JobLedger(path)
    ledger.record("seen", "done", "ok")
    ledger.fold()
    assert not (tmp_path / "jobs.journal").exists()
    assert json.loads(path.read_text())["seen"]["state"] == "done"
