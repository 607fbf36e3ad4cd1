"""Spans for every SQL statement and the connection pool's use as metrics, for one engine.

A span carries the statement text as SQLAlchemy sends it (with `$1` placeholders), never the
parameters: they can be secrets (key hashes, tokens, webhook signing secrets).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Iterator
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from prometheus_client import REGISTRY
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import Pool, QueuePool

# Long generated statements (bulk inserts) are cut: a span is for finding the query, not replaying it.
MAX_STATEMENT_CHARS = 2000
_SPAN_KEY = "_printcloud_span"


def _operation(statement: str) -> str:
    return statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "SQL"


# Taken once (a proxy until the provider is set), as `core.telemetry.traces` takes its own.
_TRACER = trace.get_tracer("printcloud.sql")


def start_statement_span(database: str, statement: str) -> Span:
    """A client span for one statement, named by its operation and carrying its text, never its values."""
    operation = _operation(statement)
    return _TRACER.start_span(
        f"{operation} {database}",
        kind=SpanKind.CLIENT,
        attributes={
            "db.system.name": "postgresql",
            "db.namespace": database,
            "db.operation.name": operation,
            "db.query.text": statement[:MAX_STATEMENT_CHARS],
        },
    )


def end_failed_statement_span(span: Span, error: BaseException) -> None:
    # The error's type only: its message can quote parameters.
    name = type(error).__name__
    span.set_attribute("error.type", name)
    span.set_status(Status(StatusCode.ERROR, name))
    span.end()


T = TypeVar("T")


async def traced(database: str, statement: str, sent: Awaitable[T]) -> T:
    """`sent` (a statement the driver sends by itself, outside SQLAlchemy) in its client span."""
    span = start_statement_span(database, statement)
    try:
        result = await sent
    except BaseException as error:
        end_failed_statement_span(span, error)
        raise
    span.end()
    return result


def trace_statements(engine: Engine, database: str) -> None:
    """Wraps each statement of `engine` (the sync engine under an AsyncEngine) in a client span."""

    @event.listens_for(engine, "before_cursor_execute")
    def _before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        span = start_statement_span(database, statement)
        if context is not None:
            setattr(context, _SPAN_KEY, span)

    @event.listens_for(engine, "after_cursor_execute")
    def _after(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        span = getattr(context, _SPAN_KEY, None)
        if span is not None:
            span.end()

    @event.listens_for(engine, "handle_error")
    def _failed(exception_context: Any) -> None:
        context = exception_context.execution_context
        span = getattr(context, _SPAN_KEY, None)
        if span is not None:
            end_failed_statement_span(span, exception_context.original_exception)


class PoolCollector(Collector):
    """`printcloud_db_pool_connections{state}` and `..._max` for every live engine, by its application name."""

    def __init__(self) -> None:
        self._pools: weakref.WeakKeyDictionary[Pool, tuple[str, int]] = weakref.WeakKeyDictionary()

    def watch(self, pool: Pool, name: str, limit: int) -> None:
        self._pools[pool] = (name, limit)

    def _sums(self) -> Iterator[tuple[str, int, int, int]]:
        by_name: dict[str, list[int]] = {}
        for pool, (name, limit) in list(self._pools.items()):
            in_use, idle, most = by_name.setdefault(name, [0, 0, 0])
            if isinstance(pool, QueuePool):
                by_name[name] = [in_use + pool.checkedout(), idle + pool.checkedin(), most + limit]
        for name, (in_use, idle, most) in by_name.items():
            yield name, in_use, idle, most

    def collect(self) -> Iterator[GaugeMetricFamily]:
        connections = GaugeMetricFamily(
            "printcloud_db_pool_connections", "Database connections of this process's pool", labels=["pool", "state"]
        )
        most = GaugeMetricFamily(
            "printcloud_db_pool_connections_max", "Connections the pool may open at most", labels=["pool"]
        )
        for name, in_use, idle, limit in self._sums():
            connections.add_metric([name, "in_use"], in_use)
            connections.add_metric([name, "idle"], idle)
            most.add_metric([name], limit)
        yield connections
        yield most


POOLS = PoolCollector()
REGISTRY.register(POOLS)
