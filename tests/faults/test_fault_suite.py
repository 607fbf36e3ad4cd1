"""The full fault suite (`make faults`): every fault under load, one at a time and then several at
once; each must leave nothing lost, duplicated or stuck."""

from __future__ import annotations

import pytest

from tests.faults.faults import FAULTS
from tests.faults.suite import SuiteEnv, run_round

pytestmark = pytest.mark.faults


@pytest.mark.parametrize("fault", list(FAULTS))
def test_invariants_hold_after(suite: SuiteEnv, fault: str) -> None:
    figures = run_round(suite, fault)
    assert figures.failures() == {}, figures.table()
