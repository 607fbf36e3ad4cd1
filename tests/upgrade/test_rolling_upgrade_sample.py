"""A short rolling upgrade and rollback under load, in `make test`: two tenants, 5 creates a
second, 30 answered before and after each, the spec's 60 s resend halved so that a job whose agent
connection was replaced mid-delivery goes out again well within the sample (`make upgrade-test`
keeps the spec's timers)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.upgrade.release_venv import InstalledRelease
from tests.upgrade.scenario import Scenario, Size, rolled_back_under_load, running_scenario, upgraded_under_load

SAMPLE = Size(tenants=2, steady_creates=30, rate=5, settle_within=150, env={"PRINTCLOUD_RESEND_AFTER_SECONDS": "30"})


@pytest.fixture(scope="module")
def scenario(previous: InstalledRelease, data_dir: Path) -> Iterator[Scenario]:
    with running_scenario(previous, SAMPLE, data_dir) as running:
        yield running


def test_a_rolling_upgrade_under_load_loses_nothing(scenario: Scenario) -> None:
    upgraded_under_load(scenario)


def test_a_rollback_runs_the_previous_release_on_the_new_schema(scenario: Scenario) -> None:
    rolled_back_under_load(scenario)
