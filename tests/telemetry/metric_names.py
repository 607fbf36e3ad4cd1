"""The metric names the code registers, and the names a PromQL expression reads."""

from __future__ import annotations

import importlib
import re

from prometheus_client import REGISTRY

# Every module that registers metrics; importing them fills the default registry.
METRIC_MODULES = (
    "printcloud.core.kafka.bus",
    "printcloud.core.db.statement_telemetry",
    "printcloud.core.kafka.dead_letters",
    "printcloud.core.http.metrics",
    "printcloud.core.kafka.outbox",
    "printcloud.core.rpc.server",
    "printcloud.core.process.lifecycle",
    "printcloud.agent_gateway.transport.agent_socket",
    "printcloud.api_gateway.persistence.rate_limiter",
    "printcloud.dispatcher.workers.timer_loop",
    "printcloud.jobs.use_cases.finished_jobs",
    "printcloud.jobs.workers.job_metrics",
    "printcloud.webhooks.workers.backlog_metrics",
    "printcloud.webhooks.workers.delivery_worker",
)
# Series Prometheus makes itself for every target.
SCRAPE_SERIES = frozenset({"up"})
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "gauge": ("",),
}
_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
# What follows a name in PromQL when the name is a label, a function or a keyword, not a metric.
_PROMQL_WORDS = frozenset(
    {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "offset", "bool"}
)


def registered_series() -> set[str]:
    """Every series name the code can expose: each family with the suffixes of its kind."""
    for module in METRIC_MODULES:
        importlib.import_module(module)
    names = set(SCRAPE_SERIES)
    for collector in list(REGISTRY._collector_to_names):
        for family in collector.collect():
            names.update(family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",)))
    return names


def series_in(expr: str) -> set[str]:
    """The metric names an expression reads: identifiers outside strings, label matchers and
    grouping clauses, that are neither functions (followed by `(`) nor PromQL keywords."""
    without_strings = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    without_matchers = re.sub(r"\{[^}]*\}", "{}", without_strings)
    without_groupings = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", without_matchers)
    without_ranges = re.sub(r"\[[^\]]*\]", "", without_groupings)
    names = set()
    for match in _NAME.finditer(without_ranges):
        name, after = match.group(), without_ranges[match.end() :].lstrip()
        if name in _PROMQL_WORDS or after.startswith("("):
            continue
        if re.fullmatch(r"[0-9.e+-]+", name) or name in {"inf", "nan", "Inf", "NaN"}:
            continue
        names.add(name)
    return names
