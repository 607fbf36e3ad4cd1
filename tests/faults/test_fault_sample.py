"""A short sample of the fault suite that `make test` runs: a crash, under load, of the service
that commits jobs."""

from __future__ import annotations

import pytest

from tests.faults.suite import SuiteEnv, run_round

# Healthy, a round settles in seconds; a sample stuck this long fails rather than hold `make test` up.
SAMPLE_SETTLE_WITHIN_SECONDS = 180.0


# `agent-mid-job` joins the sample once no job can stay `printing` after its agent is killed, and
# `client-disconnects` once the pipeline drains a long round's load within the sample's settle
# (docs/reliability.md, "Still failing"); `make faults` runs both.
@pytest.mark.parametrize("fault", ["kill-jobs"])
def test_invariants_hold_after(suite: SuiteEnv, fault: str) -> None:
    figures = run_round(suite, fault, SAMPLE_SETTLE_WITHIN_SECONDS)
    assert figures.failures() == {}, figures.table()
