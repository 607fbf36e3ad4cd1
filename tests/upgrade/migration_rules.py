"""Expand, then contract: what a migration may do to a schema the previous release still serves.

Migrations run while the previous release's processes serve (docs/internals.md, "Schema
changes"), so each statement is judged against that release's schema: what it reads and writes
must stay as it was, and nothing may hold a lock on one of its tables for longer than an instant
(every table that exists is taken to be large). Statements are parsed with PostgreSQL's own
parser (pglast); objects a migration of this release created are free to change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pglast import ast, parse_sql
from pglast.enums import AlterTableType, ConstrType, ObjectType
from pglast.stream import RawStream

from printcloud.core.db.migrations import runs_outside_a_transaction

# name -> why, the rule a violation names.
RULES = {
    "no-drop": "the previous release reads and writes it: stop using it in one release (declare it in "
    "tests/upgrade/retired.toml), drop it in the next",
    "no-rename": "the previous release uses the old name: add the new one, copy, and drop the old one a release later",
    "not-null-needs-default": "the previous release inserts rows without this column: add it nullable or with "
    "a default",
    "no-volatile-default": "a volatile default is computed for every existing row, rewriting the table under "
    "an exclusive lock: add the column without it, set the default, backfill in batches",
    "no-type-change": "changing a column's type rewrites the table under an exclusive lock, and the previous "
    "release reads the old type: add a column of the new type, copy, drop the old one later",
    "set-not-null-needs-check": "SET NOT NULL scans the whole table under an exclusive lock unless a valid "
    "CHECK (column IS NOT NULL) proves it: add that check NOT VALID, VALIDATE it, then SET NOT NULL in a later "
    "migration",
    "keep-defaults": "the previous release inserts rows relying on this default",
    "index-concurrently": "a plain CREATE or DROP INDEX blocks writes to the table while it runs: use "
    "CONCURRENTLY, alone in a '-- migration: no transaction' file",
    "concurrently-alone": "CONCURRENTLY cannot run in a transaction: the file must start with "
    "'-- migration: no transaction' and hold that statement alone",
    "constraint-not-valid": "adding this constraint scans the table (or builds an index) under a lock that "
    "blocks writes: add a CHECK or FOREIGN KEY as NOT VALID and VALIDATE it in a later migration; add UNIQUE "
    "or PRIMARY KEY USING INDEX built CONCURRENTLY",
    "no-rewrite": "this rewrites or locks the whole table while it runs",
    "backfill-in-batches": "one statement over a whole existing table holds its rows for the whole "
    "migration: backfill in batches, in a DO block that commits between them, alone in a "
    "'-- migration: no transaction' file",
    "released-migrations-are-final": "a migration that shipped in a release has run on installations "
    "already: change the schema with a new migration instead",
    "applies-to-previous-data": "the migration fails on a database holding the previous release's schema and rows",
    "previous-schema-kept": "after the migrations the previous release's table or column is gone or changed",
    "previous-rows-kept": "after the migrations rows the previous release wrote are gone",
}


@dataclass(frozen=True)
class Violation:
    file: str
    statement: str
    rule: str
    detail: str = ""

    def __str__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.file}: {self.statement}\n    breaks {self.rule}{detail}: {RULES[self.rule]}"


@dataclass(frozen=True)
class PreviousSchema:
    """What the previous release has in one schema, and what of it that release declared retired."""

    columns: dict[str, dict[str, str]]  # table -> column -> type
    defaults: dict[str, set[str]]  # table -> columns with a default
    indexes: set[str]
    functions: set[str]
    triggers: set[str]
    retired_tables: set[str] = field(default_factory=set)
    retired_columns: set[str] = field(default_factory=set)  # "table.column"

    def has_table(self, table: str) -> bool:
        return table in self.columns

    def has_column(self, table: str, column: str) -> bool:
        return column in self.columns.get(table, {})

    def table_in_use(self, table: str) -> bool:
        return self.has_table(table) and table not in self.retired_tables

    def column_in_use(self, table: str, column: str) -> bool:
        return self.has_column(table, column) and f"{table}.{column}" not in self.retired_columns


@dataclass(frozen=True)
class Facts:
    """What the checked file sees: the previous release's schema, the CHECK constraints valid in the
    database right before the file runs, and the volatility of a function by name."""

    schema: str
    previous: PreviousSchema
    proven_not_null: set[str]  # "table.column" with a valid CHECK (column IS NOT NULL)
    is_volatile: Callable[[str], bool]


def check_file(name: str, sql: str, facts: Facts) -> list[Violation]:
    """Every statement of one migration file that breaks a rule, with the rule it breaks."""
    statements = parse_sql(sql)
    alone = runs_outside_a_transaction(sql)
    violations: list[Violation] = []
    for raw in statements:
        text = _text(raw.stmt)
        found = list(_statement_violations(raw.stmt, facts, alone))
        if _concurrent(raw.stmt) and (not alone or len(statements) > 1):
            found.append(("concurrently-alone", ""))
        violations += [Violation(name, text, rule, detail) for rule, detail in found]
    if alone and len(statements) > 1 and not any(v.rule == "concurrently-alone" for v in violations):
        violations.append(Violation(name, f"{len(statements)} statements", "concurrently-alone"))
    return violations


def _text(node: ast.Node) -> str:
    text: str = RawStream()(node)
    return text if len(text) <= 200 else text[:197] + "..."


def _concurrent(node: ast.Node) -> bool:
    if isinstance(node, ast.IndexStmt | ast.DropStmt):
        return bool(node.concurrent)
    if isinstance(node, ast.ReindexStmt):
        return any(p.defname == "concurrently" for p in node.params or ())
    return False


def _table(facts: Facts, relation: ast.RangeVar | None) -> str | None:
    """The table a statement names in the migrated schema (unqualified or qualified with it)."""
    if relation is None or relation.schemaname not in (None, facts.schema):
        return None
    return str(relation.relname)


def _names(obj: Any) -> list[str]:
    items = obj.objname if isinstance(obj, ast.ObjectWithArgs) else obj
    return [str(part.sval) for part in items if isinstance(part, ast.String)]


Found = Iterator[tuple[str, str]]


def _statement_violations(node: ast.Node, facts: Facts, alone: bool) -> Found:
    previous = facts.previous
    if isinstance(node, ast.DropStmt):
        yield from _drop(node, facts)
    elif isinstance(node, ast.RenameStmt):
        table = _table(facts, node.relation)
        if node.renameType == ObjectType.OBJECT_TABLE and table and previous.has_table(table):
            yield "no-rename", f"table {table}"
        elif node.renameType == ObjectType.OBJECT_COLUMN and table and previous.has_column(table, node.subname):
            yield "no-rename", f"column {table}.{node.subname}"
    elif isinstance(node, ast.AlterTableStmt):
        table = _table(facts, node.relation)
        if table and previous.has_table(table):
            for cmd in node.cmds:
                yield from _alter(table, cmd, facts)
    elif isinstance(node, ast.IndexStmt):
        table = _table(facts, node.relation)
        if table and previous.has_table(table) and not node.concurrent:
            yield "index-concurrently", f"on {table}"
    elif isinstance(node, ast.UpdateStmt | ast.DeleteStmt | ast.TruncateStmt):
        relations = node.relations if isinstance(node, ast.TruncateStmt) else (node.relation,)
        for relation in relations:
            table = _table(facts, relation)
            if table and previous.has_table(table):
                yield ("no-rewrite" if isinstance(node, ast.TruncateStmt) else "backfill-in-batches"), table
    elif isinstance(node, ast.InsertStmt):
        read = {_table(facts, r) for r in _walk(node.selectStmt) if isinstance(r, ast.RangeVar)}
        for table in sorted(t for t in read if t and previous.has_table(t)):
            yield "backfill-in-batches", f"reads all of {table}"
    elif isinstance(node, ast.DoStmt) and not alone:
        yield "backfill-in-batches", "a DO block in a transaction"
    elif isinstance(node, ast.LockStmt | ast.ClusterStmt):
        yield "no-rewrite", type(node).__name__
    elif isinstance(node, ast.VacuumStmt) and any(o.defname == "full" for o in node.options or ()):
        yield "no-rewrite", "VACUUM FULL"
    elif isinstance(node, ast.ReindexStmt) and not _concurrent(node):
        yield "index-concurrently", "REINDEX"


def _drop(node: ast.DropStmt, facts: Facts) -> Found:
    previous = facts.previous
    kind = node.removeType
    for obj in node.objects or ():
        names = _names(obj)
        if len(names) > 1 and kind != ObjectType.OBJECT_TRIGGER and names[0] != facts.schema:
            continue
        name = names[-1]
        if kind in (ObjectType.OBJECT_TABLE, ObjectType.OBJECT_VIEW) and previous.table_in_use(name):
            yield "no-drop", f"table {name}"
        elif kind == ObjectType.OBJECT_INDEX and name in previous.indexes and not node.concurrent:
            yield "index-concurrently", f"DROP INDEX {name}"
        elif kind == ObjectType.OBJECT_FUNCTION and name in previous.functions:
            yield "no-drop", f"function {name}"
        elif kind == ObjectType.OBJECT_TRIGGER and names[-1] in previous.triggers:
            yield "no-drop", f"trigger {names[-1]}"


def _alter(table: str, cmd: ast.AlterTableCmd, facts: Facts) -> Found:
    previous = facts.previous
    kind = cmd.subtype
    column = cmd.name
    if kind == AlterTableType.AT_AddColumn:
        yield from _added_column(table, cmd.def_, facts)
    elif kind == AlterTableType.AT_DropColumn and previous.column_in_use(table, column):
        yield "no-drop", f"column {table}.{column}"
    elif kind == AlterTableType.AT_AlterColumnType and previous.has_column(table, column):
        yield "no-type-change", f"{table}.{column}"
    elif kind == AlterTableType.AT_SetNotNull and f"{table}.{column}" not in facts.proven_not_null:
        yield "set-not-null-needs-check", f"{table}.{column}"
    elif kind == AlterTableType.AT_ColumnDefault and cmd.def_ is None and column in previous.defaults.get(table, ()):
        yield "keep-defaults", f"{table}.{column}"
    elif kind == AlterTableType.AT_AddConstraint:
        yield from _added_constraint(table, cmd.def_)
    elif kind in _REWRITES:
        yield "no-rewrite", f"{_REWRITES[kind]} of {table}"


_REWRITES = {
    AlterTableType.AT_SetTableSpace: "SET TABLESPACE",
    AlterTableType.AT_SetLogged: "SET LOGGED",
    AlterTableType.AT_SetUnLogged: "SET UNLOGGED",
    AlterTableType.AT_SetAccessMethod: "SET ACCESS METHOD",
    AlterTableType.AT_SetExpression: "SET EXPRESSION",
}


def _added_column(table: str, column: ast.ColumnDef, facts: Facts) -> Found:
    constraints = column.constraints or ()
    kinds = {c.contype for c in constraints}
    where = f"{table}.{column.colname}"
    if column.typeName is not None and _names(column.typeName.names)[-1] in _SERIALS:
        yield "no-volatile-default", f"{where} is serial"
    if ConstrType.CONSTR_NOTNULL in kinds and ConstrType.CONSTR_DEFAULT not in kinds:
        yield "not-null-needs-default", where
    for constraint in constraints:
        if constraint.contype == ConstrType.CONSTR_DEFAULT:
            volatile = sorted({f for f in _functions(constraint.raw_expr) if facts.is_volatile(f)})
            if volatile:
                yield "no-volatile-default", f"{where} calls {', '.join(volatile)}"
        elif constraint.contype in (ConstrType.CONSTR_GENERATED, ConstrType.CONSTR_IDENTITY):
            yield "no-rewrite", f"{where} is generated"
        elif constraint.contype in (ConstrType.CONSTR_PRIMARY, ConstrType.CONSTR_UNIQUE, ConstrType.CONSTR_EXCLUSION):
            yield "constraint-not-valid", f"{where} builds an index under lock"
        elif constraint.contype == ConstrType.CONSTR_CHECK:
            yield "constraint-not-valid", f"{where} CHECK scans the table"


_SERIALS = {"serial", "serial4", "serial8", "bigserial", "smallserial", "serial2"}


_INDEXED = (ConstrType.CONSTR_PRIMARY, ConstrType.CONSTR_UNIQUE)


def _added_constraint(table: str, constraint: ast.Constraint) -> Found:
    name = constraint.conname or "unnamed"
    if constraint.contype in (ConstrType.CONSTR_CHECK, ConstrType.CONSTR_FOREIGN) and not constraint.skip_validation:
        yield "constraint-not-valid", f"{name} on {table} without NOT VALID"
    elif (
        constraint.contype in _INDEXED and not constraint.indexname
    ) or constraint.contype == ConstrType.CONSTR_EXCLUSION:
        yield "constraint-not-valid", f"{name} on {table} builds its index under lock"


def _functions(expression: ast.Node | None) -> set[str]:
    return {_names(node.funcname)[-1] for node in _walk(expression) if isinstance(node, ast.FuncCall)}


def _walk(node: Any) -> Iterator[ast.Node]:
    if isinstance(node, tuple | list):
        for item in node:
            yield from _walk(item)
    elif isinstance(node, ast.Node):
        yield node
        for slot in node.__slots__:
            yield from _walk(getattr(node, slot, None))
