"""Speed machinery: the hottest changes sent by the driver, in a driver transaction
(`driver_transaction`).

An INSERT, UPDATE or DELETE (with RETURNING or without) compiled once (`compiled_statements`),
written with SQLAlchemy Core on the schema's tables, so the tables stay the one definition of the
schema. Several changes that belong together can be one statement, and one round trip, as CTEs
of another (`add_cte`).
"""

from __future__ import annotations

from sqlalchemy import Delete, Insert, Update

from printcloud.core.db.compiled_statements import CompiledStatement


class CompiledWrite(CompiledStatement):
    """An INSERT, UPDATE or DELETE, compiled once."""

    @classmethod
    def of(cls, statement: Insert | Update | Delete) -> CompiledWrite:
        """`statement` takes its values as named `bindparam`s; none may be bound to a literal."""
        return cls(*cls.compiled(statement))
