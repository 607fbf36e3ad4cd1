"""The previous release serving under load, upgraded to this tree's code process by process, then
rolled back the same way (docs/upgrades.md).

`make test` runs the sample: two tenants, 5 creates a second through the upgrade, 30 answered
before and after it, the spec's 60 s resend halved so that a job whose agent connection was
replaced mid-delivery goes out again well within the sample. `make upgrade-test` runs the whole:
four tenants, 10 creates a second, 60 before and after, the spec's timers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.upgrade.release_venv import InstalledRelease
from tests.upgrade.scenario import Scenario, Size, rolled_back_under_load, running_scenario, upgraded_under_load

# The sample's settle window allows for a shared 2-core machine at half its speed, where each of the
# nine replacements takes 15 to 20 s and the creates they overlap drain after the last one.
SAMPLE = Size(tenants=2, steady_creates=30, rate=5, settle_within=240, env={"PRINTCLOUD_RESEND_AFTER_SECONDS": "30"})
WHOLE = Size(tenants=4, steady_creates=60, rate=10, settle_within=360)


@pytest.fixture(
    scope="module",
    params=[pytest.param(SAMPLE, id="sample"), pytest.param(WHOLE, id="whole", marks=pytest.mark.upgrade)],
)
def scenario(request: pytest.FixtureRequest, previous: InstalledRelease, data_dir: Path) -> Iterator[Scenario]:
    with running_scenario(previous, request.param, data_dir) as running:
        yield running


def test_a_rolling_upgrade_under_load_loses_nothing(scenario: Scenario) -> None:
    upgraded_under_load(scenario)


def test_a_rollback_runs_the_previous_release_on_the_new_schema(scenario: Scenario) -> None:
    rolled_back_under_load(scenario)
