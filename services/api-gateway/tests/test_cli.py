"""The operator CLI as a real subprocess: stdout holds exactly one JSON document, errors exit 2."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

from printcloud.core.db.database import Database

CLI = str(Path(sys.executable).with_name("printcloud"))


async def run_cli(*args: str, database_url: str | None, cwd: Path) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PRINTCLOUD_DATABASE_URL"}
    if database_url is not None:
        env["PRINTCLOUD_DATABASE_URL"] = database_url
    process = await asyncio.create_subprocess_exec(
        CLI, *args, cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await process.communicate()
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


def only_json(stdout: str) -> dict[str, Any]:
    assert stdout.endswith("\n") and stdout.count("\n") == 1, repr(stdout)
    shown: dict[str, Any] = json.loads(stdout)
    return shown


async def test_create_org_writes_owner_and_announces_it(database_url: str, db: Database, tmp_path: Path) -> None:
    code, stdout, _ = await run_cli(
        "admin", "create-org", "--name", "Acme Print", "--owner-email", "Boss@Acme.test",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    assert code == 0
    org = only_json(stdout)
    assert org == {"id": org["id"], "name": "Acme Print"}
    async with db.read() as session:
        role = await session.scalar(
            text(
                "SELECT m.role FROM gateway.memberships m JOIN gateway.users u ON u.id = m.user_id "
                "WHERE m.organization_id = CAST(:org AS uuid) AND u.email = 'boss@acme.test'"
            ),
            {"org": org["id"]},
        )
        event = (
            await session.execute(
                text("SELECT topic, key, payload FROM gateway.outbox WHERE key = :org"), {"org": org["id"]}
            )
        ).one()
    assert role == "owner"
    assert (event.topic, event.key) == ("printcloud.domain-events", org["id"])
    assert event.payload["type"] == "organization.created"
    assert (event.payload["organizationId"], event.payload["mode"]) == (org["id"], "test")
    assert event.payload["data"] == {**org, "ownerEmails": ["boss@acme.test"]}


async def test_created_key_works_and_is_stored_hashed(
    database_url: str, db: Database, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    _, stdout, _ = await run_cli(
        "admin", "create-org", "--name", "Keys Inc", "--owner-email", "k@keys.test",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    org = only_json(stdout)
    code, stdout, _ = await run_cli(
        "admin", "create-key", "--org", org["id"], "--mode", "live", "--scopes", "read,print",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    assert code == 0
    created = only_json(stdout)
    assert set(created) == {"id", "key"} and created["key"].startswith("svc_live_")

    whoami = await client.get("/v1/whoami", headers={"Authorization": f"Bearer {created['key']}"})
    assert whoami.json()["apiKeyId"] == created["id"]
    assert whoami.json()["organization"] == org
    async with db.read() as session:
        row = (
            await session.execute(
                text("SELECT key_hash, key_prefix, scopes FROM gateway.api_keys WHERE id = CAST(:id AS uuid)"),
                {"id": created["id"]},
            )
        ).one()
    assert row.key_hash == hashlib.sha256(created["key"].encode()).hexdigest()
    assert row.key_prefix == created["key"][:12]
    assert row.scopes == ["read", "print"]


async def test_a_revoked_key_is_refused_at_once(database_url: str, client: httpx.AsyncClient, tmp_path: Path) -> None:
    _, stdout, _ = await run_cli(
        "admin", "create-org", "--name", "Revokes", "--owner-email", "r@revokes.test",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    _, stdout, _ = await run_cli(
        "admin", "create-key", "--org", only_json(stdout)["id"], "--mode", "test", "--scopes", "read",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    created = only_json(stdout)
    headers = {"Authorization": f"Bearer {created['key']}"}
    assert (await client.get("/v1/whoami", headers=headers)).status_code == 200

    code, stdout, _ = await run_cli(
        "admin", "revoke-key", "--key-id", created["id"], database_url=database_url, cwd=tmp_path
    )
    assert (code, only_json(stdout)) == (0, {"id": created["id"], "revoked": True})
    assert (await client.get("/v1/whoami", headers=headers)).status_code == 401
    code, stdout, stderr = await run_cli(
        "admin", "revoke-key", "--key-id", created["id"], database_url=database_url, cwd=tmp_path
    )
    assert (code, stdout) == (2, "")
    assert "no active API key" in stderr


async def test_operator_mistakes_exit_2_with_stderr_only(database_url: str, tmp_path: Path) -> None:
    _, stdout, _ = await run_cli(
        "admin", "create-org", "--name", "Mistakes", "--owner-email", "m@m.test",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    org_id = only_json(stdout)["id"]
    for args in (
        ("--org", org_id, "--mode", "staging", "--scopes", "read"),
        ("--org", org_id, "--mode", "test", "--scopes", "read,write"),
        ("--org", "018f0000-0000-7000-8000-000000000000", "--mode", "test", "--scopes", "read"),
        ("--org", "not-an-id", "--mode", "test", "--scopes", "read"),
    ):
        code, stdout, stderr = await run_cli("admin", "create-key", *args, database_url=database_url, cwd=tmp_path)
        assert (code, stdout) == (2, "")
        assert stderr.strip()


async def test_database_url_from_the_dev_stack_file(database_url: str, tmp_path: Path) -> None:
    (tmp_path / ".dev").mkdir()
    (tmp_path / ".dev" / "stack.json").write_text(json.dumps({"database_url": database_url}))
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    code, stdout, err = await run_cli(
        "admin", "create-org", "--name", "From file", "--owner-email", "f@f.test", database_url=None, cwd=nested
    )  # fmt: skip
    assert code == 0 and only_json(stdout)["name"] == "From file", err


async def test_no_database_configured_is_a_clear_error(tmp_path: Path) -> None:
    code, stdout, stderr = await run_cli(
        "admin", "create-org", "--name", "X", "--owner-email", "x@x.test", database_url=None, cwd=tmp_path
    )  # fmt: skip
    assert code == 2 and stdout == ""
    assert "PRINTCLOUD_DATABASE_URL" in stderr


async def test_set_plan_changes_what_whoami_reports(
    database_url: str, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    _, stdout, _ = await run_cli(
        "admin", "create-org", "--name", "Planned", "--owner-email", "p@plan.test",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    org_id = only_json(stdout)["id"]
    _, stdout, _ = await run_cli(
        "admin", "create-key", "--org", org_id, "--mode", "live", "--scopes", "read",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    headers = {"Authorization": f"Bearer {only_json(stdout)['key']}"}
    assert (await client.get("/v1/whoami", headers=headers)).json()["plan"] == "free"

    code, stdout, _ = await run_cli(
        "admin", "set-plan", "--org", org_id, "--plan", "pro", database_url=database_url, cwd=tmp_path
    )
    assert code == 0 and only_json(stdout) == {"id": org_id, "plan": "pro"}
    assert (await client.get("/v1/whoami", headers=headers)).json()["plan"] == "pro"

    for args in (
        ("--org", org_id, "--plan", "platinum"),
        ("--org", "018f0000-0000-7000-8000-000000000000", "--plan", "pro"),
    ):
        code, stdout, stderr = await run_cli("admin", "set-plan", *args, database_url=database_url, cwd=tmp_path)
        assert (code, stdout) == (2, "") and "no " in stderr
    assert (await client.get("/v1/whoami", headers=headers)).json()["plan"] == "pro"


async def test_create_org_takes_one_plain_mailbox_as_its_owner(database_url: str, db: Database, tmp_path: Path) -> None:
    code, stdout, stderr = await run_cli(
        "admin", "create-org", "--name", "Display Names", "--owner-email", "Boss <boss@elsewhere.test>",
        database_url=database_url, cwd=tmp_path,
    )  # fmt: skip
    assert (code, stdout) == (2, "")
    assert "Enter one plain e-mail address" in stderr
    async with db.read() as session:
        stored = await session.scalar(text("SELECT count(*) FROM gateway.organizations WHERE name = 'Display Names'"))
    assert stored == 0
