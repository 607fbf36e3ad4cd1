"""Expand, then contract: this tree's migrations applied to a database holding the previous
release's schema (built from that release's own migration files, read from git) and rows, while
that release would still be serving. Any statement the rules forbid fails the test, naming the
file, the statement and the rule (docs/internals.md, "Schema changes")."""

from __future__ import annotations

import importlib
import tomllib
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from printcloud.core.db.migrations import NO_TRANSACTION
from printcloud.devstack.infrastructure import temporary_database
from tests.upgrade.migration_rules import Facts, PreviousSchema, check_file
from tests.upgrade.releases import (
    CORE_MIGRATIONS,
    ROOT,
    SCHEMA_MIGRATIONS,
    Release,
    commit_of,
    core_migrations_at,
    files_at,
    git,
    previous_release,
)
from tests.upgrade.schema_upgrade import SchemaUpgrade, UpgradeReport, check_upgrade

RETIRED = "tests/upgrade/retired.toml"


def rows_of(release: Release) -> str:
    rows = ROOT / "tests" / "upgrade" / "rows" / f"{release.version}.sql"
    assert rows.exists(), f"write {rows.relative_to(ROOT)}: rows as release {release.version} writes them"
    return rows.read_text()


def retired_in(commit: str) -> dict[str, dict[str, list[str]]]:
    """What the previous release declared it no longer uses (none when it had no such file)."""
    listed = git("ls-tree", "--name-only", commit, RETIRED).strip()
    return tomllib.loads(git("show", f"{commit}:{RETIRED}")) if listed else {}


def upgrades_from(commit: str) -> list[SchemaUpgrade]:
    retired = retired_in(commit)
    return [
        SchemaUpgrade(
            schema,
            previous=[core_migrations_at(commit), files_at(commit, folder)],
            current=[ROOT / CORE_MIGRATIONS, ROOT / folder],
            retired_tables=set(retired.get(schema, {}).get("tables", [])),
            retired_columns=set(retired.get(schema, {}).get("columns", [])),
        )
        for schema, folder in SCHEMA_MIGRATIONS.items()
    ]


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    async with temporary_database("printcloud_upgrade_rules") as url:
        yield url


async def test_migrations_since_the_previous_release_expand_and_never_break_it(database_url: str) -> None:
    release = previous_release()
    report = await check_upgrade(database_url, upgrades_from(commit_of(release)), rows_of(release))

    assert report.tables_without_rows == [], f"rows/{release.version}.sql must fill every table of the release"
    assert report.violations == [], f"against release {release.version}:\n{report.text()}"
    print(f"applied on release {release.version}'s schema and rows: {report.applied}")


def test_every_schema_with_migrations_is_checked() -> None:
    folders = {str(p.relative_to(ROOT)) for p in ROOT.glob("services/*/src/printcloud/*/persistence/migrations")}
    assert folders == set(SCHEMA_MIGRATIONS.values())


def test_what_this_release_declares_retired_is_out_of_its_tables() -> None:
    retired = tomllib.loads((ROOT / RETIRED).read_text())
    assert set(retired) <= set(SCHEMA_MIGRATIONS)
    for schema, names in retired.items():
        package = SCHEMA_MIGRATIONS[schema].removeprefix("services/").split("/src/")[1].replace("/migrations", "")
        metadata = importlib.import_module(f"{package.replace('/', '.')}.tables").metadata
        for table in names.get("tables", []):
            assert f"{schema}.{table}" not in metadata.tables, f"{schema}.{table} is declared retired but still used"
        for column in names.get("columns", []):
            table, name = column.split(".")
            used = metadata.tables.get(f"{schema}.{table}")
            assert used is None or name not in used.c, f"{schema}.{column} is declared retired but still used"


# --- the rules themselves, on a deliberately broken migration in a package of its own ---

BROKEN = """-- A migration that would take the previous release down during a rolling upgrade.
ALTER TABLE print_jobs RENAME COLUMN title TO name;
ALTER TABLE print_jobs ADD COLUMN priority integer NOT NULL;
CREATE INDEX print_jobs_by_title ON print_jobs (title);
ALTER TABLE print_jobs ALTER COLUMN qty TYPE bigint;
ALTER TABLE job_state_changes DROP COLUMN message;
UPDATE print_jobs SET state_message = '';
"""
FINE = """-- Expand: a new table, a nullable column and a column with a constant default.
CREATE TABLE job_labels (job_id uuid NOT NULL, label text NOT NULL, PRIMARY KEY (job_id, label));
ALTER TABLE print_jobs ADD COLUMN priority integer NOT NULL DEFAULT 0;
ALTER TABLE print_jobs ADD COLUMN note text;
CREATE INDEX job_labels_label ON job_labels (label);
"""
CONCURRENT = "-- migration: no transaction\nCREATE INDEX CONCURRENTLY print_jobs_by_title ON print_jobs (title);\n"


def _package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Path:
    """This tree's jobs migrations plus `files`, as an importable package of their own."""
    name = f"upgrade_rules_probe_{uuid.uuid4().hex[:8]}"
    package = tmp_path / name / "migrations"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    for source in (ROOT / SCHEMA_MIGRATIONS["jobs"]).glob("*.sql"):
        (package / source.name).write_text(source.read_text())
    for file, sql in files.items():
        (package / file).write_text(sql)
    monkeypatch.syspath_prepend(str(tmp_path))
    return Path(importlib.import_module(f"{name}.migrations").__path__[0])


async def _jobs_upgrade(database_url: str, folder: Path) -> UpgradeReport:
    """Every schema as the release left it, with `folder` as this tree's jobs migrations."""
    upgrades = upgrades_from(commit_of(previous_release()))
    upgrades = [replace(u, current=[ROOT / CORE_MIGRATIONS, folder]) if u.schema == "jobs" else u for u in upgrades]
    return await check_upgrade(database_url, upgrades, rows_of(previous_release()))


async def test_a_breaking_migration_is_named_with_its_statement_and_rule(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _package(tmp_path, monkeypatch, {"0099_breaking.sql": BROKEN})

    report = await _jobs_upgrade(database_url, folder)

    print(f"\nwhat a broken migration looks like:\n{report.text()}")
    found = {(v.file, v.rule, v.statement) for v in report.violations}
    assert found >= {
        ("0099_breaking.sql", "no-rename", "ALTER TABLE print_jobs RENAME COLUMN title TO name"),
        ("0099_breaking.sql", "not-null-needs-default", "ALTER TABLE print_jobs ADD COLUMN priority integer NOT NULL"),
        ("0099_breaking.sql", "index-concurrently", "CREATE INDEX print_jobs_by_title ON print_jobs (title)"),
        ("0099_breaking.sql", "no-type-change", "ALTER TABLE print_jobs ALTER COLUMN qty TYPE bigint"),
        ("0099_breaking.sql", "no-drop", "ALTER TABLE job_state_changes DROP COLUMN message"),
        ("0099_breaking.sql", "backfill-in-batches", "UPDATE print_jobs SET state_message = ''"),
    }
    # On the previous release's rows it cannot even apply: a NOT NULL column without a value.
    assert any(v.rule == "applies-to-previous-data" and "priority" in v.detail for v in report.violations)
    assert (
        "0099_breaking.sql: ALTER TABLE print_jobs RENAME COLUMN title TO name\n    breaks no-rename" in report.text()
    )


async def test_expanding_migrations_pass_and_apply(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _package(tmp_path, monkeypatch, {"0098_expand.sql": FINE, "0099_index.sql": CONCURRENT})

    report = await _jobs_upgrade(database_url, folder)

    assert report.violations == [], report.text()
    assert report.applied["jobs"][-2:] == ["0098_expand.sql", "0099_index.sql"]


async def test_a_released_migration_edited_afterwards_is_caught(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _package(tmp_path, monkeypatch, {})
    edited = folder / "0012_job_custom_paper.sql"
    edited.write_text(edited.read_text() + "ALTER TABLE print_jobs ADD COLUMN custom_paper_name text;\n")

    report = await _jobs_upgrade(database_url, folder)

    assert [(v.file, v.rule) for v in report.violations] == [
        ("0012_job_custom_paper.sql", "released-migrations-are-final")
    ]


# --- single rules, on statements alone ---

PREVIOUS = PreviousSchema(
    columns={"print_jobs": {"title": "text", "note": "text", "created_at": "timestamp with time zone"}},
    defaults={"print_jobs": {"created_at"}},
    indexes={"print_jobs_scope"},
    functions=set(),
    triggers=set(),
    retired_columns={"print_jobs.note"},
)


def _rules(sql: str, proven_not_null: frozenset[str] = frozenset()) -> list[str]:
    facts = Facts("jobs", PREVIOUS, set(proven_not_null), lambda f: f in {"gen_random_uuid", "clock_timestamp"})
    return [v.rule for v in check_file("0100_probe.sql", sql, facts)]


def test_a_column_the_previous_release_retired_may_be_dropped() -> None:
    assert _rules("ALTER TABLE print_jobs DROP COLUMN note") == []
    assert _rules("ALTER TABLE print_jobs DROP COLUMN title") == ["no-drop"]


def test_set_not_null_needs_a_validated_check_first() -> None:
    statement = "ALTER TABLE print_jobs ALTER COLUMN title SET NOT NULL"
    assert _rules(statement) == ["set-not-null-needs-check"]
    assert _rules(statement, frozenset({"print_jobs.title"})) == []


def test_defaults_that_rewrite_or_vanish_are_refused() -> None:
    assert _rules("ALTER TABLE print_jobs ADD COLUMN k uuid DEFAULT gen_random_uuid()") == ["no-volatile-default"]
    assert _rules("ALTER TABLE print_jobs ADD COLUMN at timestamptz NOT NULL DEFAULT now()") == []
    assert _rules("ALTER TABLE print_jobs ALTER COLUMN created_at DROP DEFAULT") == ["keep-defaults"]


def test_constraints_are_added_not_valid_then_validated() -> None:
    assert _rules("ALTER TABLE print_jobs ADD CONSTRAINT t CHECK (title <> '')") == ["constraint-not-valid"]
    assert _rules("ALTER TABLE print_jobs ADD CONSTRAINT t CHECK (title <> '') NOT VALID") == []
    assert _rules("ALTER TABLE print_jobs VALIDATE CONSTRAINT t") == []


def test_a_concurrent_statement_runs_alone_outside_a_transaction() -> None:
    index = "CREATE INDEX CONCURRENTLY print_jobs_title ON print_jobs (title);"
    assert _rules(index) == ["concurrently-alone"]
    assert _rules(f"{NO_TRANSACTION}\n{index}") == []
    assert _rules(f"{NO_TRANSACTION}\n{index}\n{index}") == ["concurrently-alone", "concurrently-alone"]
    batched = f"{NO_TRANSACTION}\nDO $$ BEGIN UPDATE print_jobs SET note = ''; COMMIT; END $$;"
    assert _rules(batched) == []
    assert _rules(batched.removeprefix(NO_TRANSACTION)) == ["backfill-in-batches"]
