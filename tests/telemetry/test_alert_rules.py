"""The alert rules shipped by the chart: valid for Prometheus, each alert tested by `promtool test
rules` (tests/telemetry/alerts_test.yaml), each with a severity and a runbook that exists, and
reading only metrics the code registers.

promtool comes from `scripts/ci-promtool.sh` (CI runs it; so can a developer, as root)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.telemetry.metric_names import registered_series, series_in

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy/helm/printcloud/files/alerts.yaml"
RULE_TESTS = Path(__file__).with_name("alerts_test.yaml")
RUNBOOKS = ROOT / "docs/runbooks.md"
RUNBOOK_URL = "https://github.com/printcloud/printcloud/blob/main/docs/runbooks.md#"
SEVERITIES = {"critical", "warning"}


def _alerts() -> list[dict]:
    document = yaml.safe_load(RULES.read_text())
    assert set(document) == {"groups"}, "the file is the `groups` of a PrometheusRule spec"
    return [rule for group in document["groups"] for rule in group["rules"] if "alert" in rule]


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", markdown, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def _promtool() -> str:
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: run scripts/ci-promtool.sh (as root) first"
    return promtool


def test_prometheus_accepts_the_rules() -> None:
    result = subprocess.run([_promtool(), "check", "rules", str(RULES)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_fires_as_its_unit_tests_expect() -> None:
    result = subprocess.run(
        [_promtool(), "test", "rules", RULE_TESTS.name], cwd=RULE_TESTS.parent, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    tested = set(re.findall(r"alertname:\s*(\S+)", RULE_TESTS.read_text()))
    assert tested == {alert["alert"] for alert in _alerts()}, "every alert has a unit test"


@pytest.mark.parametrize("alert", _alerts(), ids=lambda alert: alert["alert"])
def test_every_alert_has_a_severity_and_a_runbook_section(alert: dict) -> None:
    assert alert["labels"]["severity"] in SEVERITIES
    assert alert["annotations"]["summary"] and alert["annotations"]["description"]
    # The chart writes every runbook_url as <runbookBaseUrl>#<alert in lower case>: the same anchor.
    url = alert["annotations"]["runbook_url"]
    assert url == RUNBOOK_URL + alert["alert"].lower()
    assert alert["alert"].lower() in _anchors(RUNBOOKS.read_text()), f"no section for {url} in docs/runbooks.md"


@pytest.mark.parametrize("alert", _alerts(), ids=lambda alert: alert["alert"])
def test_every_alert_reads_only_metrics_the_code_registers(alert: dict) -> None:
    used = series_in(alert["expr"])
    assert used, alert["expr"]
    assert used <= registered_series(), f"unknown metrics: {sorted(used - registered_series())}"


def test_the_metric_name_reader_sees_names_and_nothing_else() -> None:
    expr = 'sum by (job, le) (rate(a_total{code=~"x|y", b="c"}[5m])) / on (job) group_left (d) b_max > 0.9 and up'
    assert series_in(expr) == {"a_total", "b_max", "up"}
