"""A short sample of the fault suite that `make test` runs: a crash of the service that commits
jobs, and a client hanging up at every point of a create."""

from __future__ import annotations

import pytest

from tests.faults.suite import SuiteEnv, run_round

# Healthy, a round settles in seconds; a sample stuck this long fails rather than hold `make test` up.
SAMPLE_SETTLE_WITHIN_SECONDS = 180.0


# `agent-mid-job` joins the sample once no job can stay `printing` after its agent is killed
# (docs/reliability.md, "Still failing"); `make faults` runs it.
@pytest.mark.parametrize("fault", ["kill-jobs", "client-disconnects"])
def test_invariants_hold_after(suite: SuiteEnv, fault: str) -> None:
    figures = run_round(suite, fault, SAMPLE_SETTLE_WITHIN_SECONDS)
    assert figures.failures() == {}, figures.table()
