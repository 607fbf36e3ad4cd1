"""Speed machinery: the hottest reads sent by the driver (docs/performance.md, "Speed machinery").

A SELECT written with SQLAlchemy once, compiled once, and sent by asyncpg as a prepared statement
on a connection of the service's own pool: no statement built, no cache key computed and no ORM
result processing on every call. The statement is still written with the schema's tables and the
repository's scoping conditions, so nothing about what it reads is written twice; only the values
change from call to call, as named `bindparam`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
from sqlalchemy import BindParameter, Select, bindparam
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg

from printcloud.core.scope import Scope

# The dialect the engines use: it renders `$n` placeholders and the casts asyncpg expects.
_DIALECT = PGDialect_asyncpg()  # type: ignore[no-untyped-call]  # SQLAlchemy types the dialect loosely


class Fields(asyncpg.Record):
    """A row whose columns read as attributes, as SQLAlchemy's rows do, so that one mapping to a
    message serves rows of either kind."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class CompiledRead:
    """A SELECT as the SQL text sent to PostgreSQL and the names of its parameters in order."""

    sql: str
    parameters: tuple[str, ...]

    @classmethod
    def of(cls, statement: Select[Any]) -> CompiledRead:
        """`statement` takes its values as named `bindparam`s; none may be bound to a literal."""
        compiled = statement.compile(dialect=_DIALECT)
        if compiled.params and any(value is not None for value in compiled.params.values()):
            raise ValueError("a compiled read takes every value as a named bindparam, not a literal")
        return cls(compiled.string, tuple(compiled.positiontup or ()))

    def arguments(self, values: dict[str, Any]) -> Sequence[Any]:
        missing = set(self.parameters) - values.keys()
        if missing:
            raise TypeError(f"values missing for {sorted(missing)}")
        return [values[name] for name in self.parameters]


def scope_bindparams() -> tuple[BindParameter[Any], BindParameter[Any]]:
    """The organization and mode of a scoped compiled read, filled in by `scope_values`."""
    return bindparam("organization_id"), bindparam("mode")


def scope_values(scope: Scope) -> dict[str, Any]:
    return {"organization_id": scope.organization_id, "mode": scope.mode}
