"""The Grafana dashboard shipped by the chart reads only metrics the code registers, and shows
each thing an SRE watches."""

from __future__ import annotations

import json
from pathlib import Path

from tests.telemetry.metric_names import registered_series, series_in

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy/helm/printcloud/files/dashboard.json"
# What the dashboard must show, by the series that show it.
WATCHED = {
    "HTTP RED": "printcloud_http_request_duration_seconds_bucket",
    "gRPC RED": "printcloud_grpc_server_handled_total",
    "gRPC latency": "printcloud_grpc_server_handling_seconds_bucket",
    "jobs by state": "printcloud_print_jobs_active",
    "how jobs end": "printcloud_jobs_finished_total",
    "job timer rounds": "printcloud_job_timer_rounds_total",
    "dead letters": "printcloud_dead_letters_waiting",
    "rate-limit store": "printcloud_rate_limit_store_up",
    "consumer lag": "printcloud_kafka_consumer_lag_messages",
    "outbox backlog": "printcloud_outbox_backlog_rows",
    "outbox age": "printcloud_outbox_oldest_unsent_age_seconds",
    "webhook backlog": "printcloud_webhook_deliveries_due",
    "webhook latency": "printcloud_webhook_delivery_latency_seconds_bucket",
    "agents": "printcloud_agent_connections",
    "database pool": "printcloud_db_pool_connections",
}


def _dashboard() -> dict:
    return json.loads(DASHBOARD.read_text())


def _exprs(dashboard: dict) -> list[str]:
    return [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]


def test_the_dashboard_reads_only_metrics_the_code_registers() -> None:
    used = set().union(*(series_in(expr) for expr in _exprs(_dashboard())))
    assert used <= registered_series(), f"unknown metrics: {sorted(used - registered_series())}"


def test_the_dashboard_shows_everything_an_sre_watches() -> None:
    used = set().union(*(series_in(expr) for expr in _exprs(_dashboard())))
    assert {what for what, series in WATCHED.items() if series not in used} == set()


def test_the_dashboard_is_importable() -> None:
    dashboard = _dashboard()
    assert dashboard["uid"] and dashboard["title"] == "PrintCloud"
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    assert all({"h", "w", "x", "y"} <= set(panel["gridPos"]) for panel in dashboard["panels"])
    variables = {variable["name"] for variable in dashboard["templating"]["list"]}
    assert {"datasource", "namespace"} <= variables
    # Every query names the data source variable, so the dashboard works with any Prometheus.
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            assert target["datasource"]["uid"] == "${datasource}"
            assert 'namespace=~"$namespace"' in target["expr"]
