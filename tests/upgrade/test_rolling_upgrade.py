"""The whole rolling upgrade and rollback under load (`make upgrade-test`): four tenants, 10
creates a second through the minutes each takes, the spec's timers (a job caught mid-delivery waits
the spec's 60 s resend)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.upgrade.release_venv import InstalledRelease
from tests.upgrade.scenario import Scenario, Size, rolled_back_under_load, running_scenario, upgraded_under_load

pytestmark = pytest.mark.upgrade

WHOLE = Size(tenants=4, steady_creates=60, rate=10, settle_within=360)


@pytest.fixture(scope="module")
def scenario(previous: InstalledRelease, data_dir: Path) -> Iterator[Scenario]:
    with running_scenario(previous, WHOLE, data_dir) as running:
        yield running


def test_a_rolling_upgrade_under_load_loses_nothing(scenario: Scenario) -> None:
    upgraded_under_load(scenario)


def test_a_rollback_runs_the_previous_release_on_the_new_schema(scenario: Scenario) -> None:
    rolled_back_under_load(scenario)
