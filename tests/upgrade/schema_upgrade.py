"""The previous release's schema and rows in a real database, then this release's migrations on
top, one file at a time through the real runner: every statement judged by the expand-then-
contract rules (`migration_rules`), every file applied to the previous release's data, and the
previous release's tables, columns and rows found intact afterwards."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from printcloud.core.db.migrations import MigrationLocksUnavailable, migrate, migration_files
from printcloud.core.db.url import connect
from tests.upgrade.migration_rules import Facts, PreviousSchema, Violation, check_file


@dataclass(frozen=True)
class SchemaUpgrade:
    """One schema: its migration folders in the order they run (core's, then the service's), as
    the previous release shipped them (name -> SQL) and as this tree has them."""

    schema: str
    previous: list[dict[str, str]]
    current: list[Path]
    retired_tables: set[str] = field(default_factory=set)
    retired_columns: set[str] = field(default_factory=set)


@dataclass
class UpgradeReport:
    violations: list[Violation] = field(default_factory=list)
    applied: dict[str, list[str]] = field(default_factory=dict)
    tables_without_rows: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(str(v) for v in self.violations)


async def check_upgrade(database_url: str, schemas: list[SchemaUpgrade], rows_sql: str) -> UpgradeReport:
    report = UpgradeReport()
    conn = await connect(database_url)
    workdir = Path(tempfile.mkdtemp(prefix="printcloud-upgrade-"))
    try:
        for upgrade in schemas:
            for n, files in enumerate(upgrade.previous):
                await migrate(database_url, upgrade.schema, _folder(workdir / upgrade.schema / f"previous-{n}", files))
        await conn.execute(rows_sql)
        volatile = {r["proname"]: r["volatile"] for r in await conn.fetch(_VOLATILITY)}
        for upgrade in schemas:
            previous = await _previous_schema(conn, upgrade)
            rows_before = await _row_counts(conn, upgrade.schema)
            report.tables_without_rows += [f"{upgrade.schema}.{t}" for t, n in rows_before.items() if n == 0]
            applied = await _apply_new(conn, database_url, upgrade, previous, workdir, volatile, report)
            report.applied[upgrade.schema] = applied
            report.violations += await _previous_kept(conn, upgrade, previous, rows_before)
    finally:
        await conn.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return report


def _folder(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, sql in files.items():
        (path / name).write_text(sql)
    return path


async def _apply_new(
    conn: asyncpg.Connection,
    database_url: str,
    upgrade: SchemaUpgrade,
    previous: PreviousSchema,
    workdir: Path,
    volatile: dict[str, bool],
    report: UpgradeReport,
) -> list[str]:
    """Each file this release added, judged then applied alone (the runner skips what it recorded)."""
    applied: list[str] = []
    for n, (shipped, folder) in enumerate(zip(upgrade.previous, upgrade.current, strict=True)):
        growing = _folder(workdir / upgrade.schema / f"current-{n}", shipped)
        current = {f.name: f.read_text() for f in migration_files(folder)}
        for name in sorted(set(shipped) - set(current)):
            report.violations.append(Violation(name, "removed", "released-migrations-are-final"))
        for name in sorted(n for n in set(shipped) & set(current) if shipped[n] != current[n]):
            report.violations.append(Violation(name, "changed since the release", "released-migrations-are-final"))
        for name in sorted(set(current) - set(shipped)):
            facts = Facts(
                upgrade.schema,
                previous,
                await _proven_not_null(conn, upgrade.schema),
                lambda function: volatile.get(function, True),
            )
            report.violations += check_file(name, current[name], facts)
            (growing / name).write_text(current[name])
            try:
                applied += await migrate(database_url, upgrade.schema, growing)
            except (asyncpg.PostgresError, MigrationLocksUnavailable) as error:
                reason = f"{type(error).__name__}: {error}"
                report.violations.append(Violation(name, "applying it", "applies-to-previous-data", reason))
                return applied
    return applied


_VOLATILITY = "SELECT proname, bool_or(provolatile = 'v') AS volatile FROM pg_proc GROUP BY proname"
_NOT_NULL_CHECK = re.compile(r"^CHECK \(\(?\"?(\w+)\"? IS NOT NULL\)?\)$")


async def _proven_not_null(conn: asyncpg.Connection, schema: str) -> set[str]:
    rows = await conn.fetch(
        "SELECT c.relname, pg_get_constraintdef(k.oid) AS definition FROM pg_constraint k "
        "JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = $1 AND k.contype = 'c' AND k.convalidated",
        schema,
    )
    return {f"{r['relname']}.{m[1]}" for r in rows if (m := _NOT_NULL_CHECK.match(r["definition"]))}


async def _previous_schema(conn: asyncpg.Connection, upgrade: SchemaUpgrade) -> PreviousSchema:
    schema = upgrade.schema
    columns: dict[str, dict[str, str]] = {}
    defaults: dict[str, set[str]] = {}
    for r in await conn.fetch(
        "SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type, "
        "a.atthasdef AS has_default FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v') AND a.attnum > 0 AND NOT a.attisdropped",
        schema,
    ):
        columns.setdefault(r["table"], {})[r["column"]] = r["type"]
        if r["has_default"]:
            defaults.setdefault(r["table"], set()).add(r["column"])
    indexes = {r[0] for r in await conn.fetch("SELECT indexname FROM pg_indexes WHERE schemaname = $1", schema)}
    functions = {
        r[0]
        for r in await conn.fetch(
            "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1", schema
        )
    }
    triggers = {
        r[0]
        for r in await conn.fetch(
            "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal",
            schema,
        )
    }
    return PreviousSchema(
        columns, defaults, indexes, functions, triggers, upgrade.retired_tables, upgrade.retired_columns
    )


async def _row_counts(conn: asyncpg.Connection, schema: str) -> dict[str, int]:
    tables = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1", schema)
    return {t[0]: int(await conn.fetchval(f'SELECT count(*) FROM "{schema}"."{t[0]}"')) for t in tables}


async def _previous_kept(
    conn: asyncpg.Connection, upgrade: SchemaUpgrade, previous: PreviousSchema, rows_before: dict[str, int]
) -> list[Violation]:
    after = await _previous_schema(conn, upgrade)
    rows_after = await _row_counts(conn, upgrade.schema)
    found = []
    for table, columns in previous.columns.items():
        if not previous.table_in_use(table):
            continue
        if not after.has_table(table):
            found.append(Violation(f"{upgrade.schema}.{table}", "after the migrations", "previous-schema-kept", "gone"))
            continue
        for column, kind in columns.items():
            if not previous.column_in_use(table, column):
                continue
            now = after.columns[table].get(column)
            if now != kind:
                detail = "gone" if now is None else f"{kind} -> {now}"
                where = f"{upgrade.schema}.{table}.{column}"
                found.append(Violation(where, "after the migrations", "previous-schema-kept", detail))
        if rows_after.get(table, 0) < rows_before.get(table, 0) and table != "schema_migrations":
            detail = f"{rows_before[table]} -> {rows_after.get(table, 0)}"
            found.append(Violation(f"{upgrade.schema}.{table}", "after the migrations", "previous-rows-kept", detail))
    return found
