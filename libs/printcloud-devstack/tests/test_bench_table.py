"""The bench's table: each target met or missed against the floor measured in the same run."""

from __future__ import annotations

from printcloud.devstack.bench.floor import Floor
from printcloud.devstack.bench.table import Row, cpu_within, render, within


def test_a_jobs_floor_is_a_request_a_call_and_two_transactions_and_a_reads_a_select() -> None:
    floor = Floor(api_ms=0.25, grpc_ms=0.5, transaction_ms=0.75, select_ms=0.125)
    assert floor.job_ms == 0.25 + 0.5 + 2 * 0.75
    assert floor.read_ms == 0.25 + 0.5 + 0.125


def test_a_floor_with_a_part_not_measured_is_not_measured() -> None:
    assert Floor(api_ms=0.25, grpc_ms=0.5).job_ms == 0.0
    assert Floor(api_ms=0.25, grpc_ms=0.5, transaction_ms=0.75).read_ms == 0.0


def test_a_run_says_whether_its_machine_is_as_fast_as_a_reference_machine() -> None:
    assert Floor().machine == ""
    assert Floor(api_per_second=8_000).machine.startswith("a reference machine: bare FastAPI GET 8,000/s")
    slower = Floor(api_per_second=2_000).machine
    assert slower.startswith("slower than a reference machine: bare FastAPI GET 2,000/s, 25% of")


def test_cpu_is_met_up_to_its_multiple_of_the_floor_and_missed_beyond() -> None:
    met = cpu_within("create", 8.0, 2.0, "floor of a job", 4)
    assert (met.measured, met.target, met.floor, met.ratio, met.verdict) == (
        "8.00 ms CPU", "≤ 4 x floor of a job", "2.00 ms", "4.0 x", "met"
    )  # fmt: skip
    assert cpu_within("create", 8.5, 2.0, "floor of a job", 4).verdict == "missed"
    assert cpu_within("create", float("nan"), 2.0, "floor of a job", 4).verdict == "missed"


def test_cpu_without_a_floor_has_no_verdict() -> None:
    row = cpu_within("create", 8.0, 0.0, "floor of a job", 4)
    assert (row.floor, row.ratio, row.verdict) == ("not measured", "", "")


def test_the_table_has_a_column_for_each_and_a_line_for_each_row() -> None:
    rows = [Row("bare FastAPI GET", "6,000/s"), within("p50", "9.0 ms", "p50 ≤ 10 ms", True)]
    header, rule, bare, p50, blank, note = render(rows, ["a note"]).splitlines()
    assert [c.strip() for c in header.split("|")[1:-1]] == ["figure", "measured", "target", "floor", "ratio", "verdict"]
    assert [c.strip() for c in bare.split("|")[1:-1]] == ["bare FastAPI GET", "6,000/s", "", "", "", ""]
    assert [c.strip() for c in p50.split("|")[1:-1]] == ["p50", "9.0 ms", "p50 ≤ 10 ms", "", "", "met"]
    assert (blank, note) == ("", "a note")
    assert len({len(line) for line in (header, rule, bare, p50)}) == 1
