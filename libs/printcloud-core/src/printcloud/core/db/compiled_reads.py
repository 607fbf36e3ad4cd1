"""Speed machinery: the hottest reads sent by the driver (docs/performance.md, "Speed machinery").

A SELECT compiled once (`compiled_statements`), read by `Database.fetch` outside any transaction
or by a driver transaction (`driver_transaction`) inside one. The statement is written with the
schema's tables and the repository's scoping conditions.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BindParameter, Select, bindparam

from printcloud.core.db.compiled_statements import CompiledStatement, Fields
from printcloud.core.scope import Scope

__all__ = ["CompiledRead", "Fields", "scope_bindparams", "scope_values"]


class CompiledRead(CompiledStatement):
    """A SELECT, compiled once."""

    @classmethod
    def of(cls, statement: Select[Any]) -> CompiledRead:
        """`statement` takes its values as named `bindparam`s; none may be bound to a literal."""
        return cls(*cls.compiled(statement))


def scope_bindparams() -> tuple[BindParameter[Any], BindParameter[Any]]:
    """The organization and mode of a scoped compiled read, filled in by `scope_values`."""
    return bindparam("organization_id"), bindparam("mode")


def scope_values(scope: Scope) -> dict[str, Any]:
    return {"organization_id": scope.organization_id, "mode": scope.mode}
