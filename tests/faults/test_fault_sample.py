"""A short sample of the fault suite that `make test` runs: a crash of the service that commits
jobs, the virtual agents killed with jobs in their hands, and a client hanging up mid-create."""

from __future__ import annotations

import pytest

from tests.faults.suite import SuiteEnv, run_round

# Healthy, a round settles in seconds; a sample stuck this long fails rather than hold `make test` up.
SAMPLE_SETTLE_WITHIN_SECONDS = 180.0


@pytest.mark.parametrize("fault", ["kill-jobs", "agent-mid-job", "client-disconnects"])
def test_invariants_hold_after(suite: SuiteEnv, fault: str) -> None:
    figures = run_round(suite, fault, SAMPLE_SETTLE_WITHIN_SECONDS)
    assert figures.failures() == {}, figures.table()
