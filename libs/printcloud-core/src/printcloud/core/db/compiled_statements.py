"""Speed machinery: statements compiled once and sent by the driver (docs/performance.md, "Speed machinery").

A statement written with SQLAlchemy once, compiled once, and sent by asyncpg as a prepared
statement on a connection of the service's own pool: no statement built, no cache key computed
and no ORM result processing on every call. It is still written with the schema's tables, so
nothing about what it reads or writes is defined twice; only the values change from call to call,
as named `bindparam`s. `CompiledRead` (`compiled_reads`) and `CompiledWrite` (`compiled_writes`)
are its two kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import asyncpg
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

# The dialect the engines use: it renders `$n` placeholders and the casts asyncpg expects.
_DIALECT = PGDialect_asyncpg()  # type: ignore[no-untyped-call]  # SQLAlchemy types the dialect loosely

# What SQLAlchemy does to a value before the driver sees it (JSON is sent as its text), by parameter.
_Processor = Callable[[Any], Any] | None


class Fields(asyncpg.Record):
    """A row whose columns read as attributes, as SQLAlchemy's rows do, so that one mapping to a
    message serves rows of either kind."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class CompiledStatement:
    """A statement as the SQL text sent to PostgreSQL and the names of its parameters in order,
    each with what its type does to a value on the way (None for the many types that do nothing)."""

    sql: str
    parameters: tuple[str, ...]
    processors: tuple[_Processor, ...]

    @classmethod
    def compiled(cls, statement: ClauseElement) -> tuple[str, tuple[str, ...], tuple[_Processor, ...]]:
        """`statement` takes its values as named `bindparam`s; none may be bound to a literal, which
        would be compiled into the statement for every call."""
        compiled = cast(SQLCompiler, statement.compile(dialect=_DIALECT))
        if compiled.params and any(value is not None for value in compiled.params.values()):
            raise ValueError("a compiled statement takes every value as a named bindparam, not a literal")
        parameters = tuple(compiled.positiontup or ())
        processors = tuple(
            compiled.binds[name].type.dialect_impl(_DIALECT).bind_processor(_DIALECT) for name in parameters
        )
        return compiled.string, parameters, processors

    def arguments(self, values: dict[str, Any]) -> Sequence[Any]:
        missing = set(self.parameters) - values.keys()
        if missing:
            raise TypeError(f"values missing for {sorted(missing)}")
        return [
            values[name] if process is None else process(values[name])
            for name, process in zip(self.parameters, self.processors, strict=True)
        ]
