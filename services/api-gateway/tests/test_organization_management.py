"""Members, roles, leaving, renaming and deleting an organization, and the audit log, on the real
database: the rules that keep an owner, what a removal ends at once, and what each change records
and announces."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from sqlalchemy import select

from printcloud.api_gateway.domain import sessions as session_rules
from printcloud.api_gateway.domain.api_keys import hash_api_key, mint_api_key
from printcloud.api_gateway.domain.identity import SessionIdentity
from printcloud.api_gateway.persistence import people, sessions
from printcloud.api_gateway.persistence.tables import memberships, outbox
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.use_cases.accounts import Accounts
from printcloud.api_gateway.use_cases.organization import LAST_OWNER, ONLY_OWNER
from printcloud.contracts.errors import ApiError
from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.timeutil import utcnow

if TYPE_CHECKING:
    from conftest import Services


async def _signed_in(deps: GatewayDeps, db: Database, organization_id: str, email: str) -> tuple[str, SessionIdentity]:
    """A live session of `email` (a member already) acting for the organization: (token, identity)."""
    new = session_rules.mint_session()
    async with db.transaction() as session:
        user_id = await people.user_id_by_email(session, email)
        assert user_id is not None
        await sessions.insert_session(
            session, new.token_hash, user_id, organization_id, "test", utcnow() + timedelta(hours=1)
        )
    identity = await deps.sign_in.identify(new.token)
    assert identity is not None
    return new.token, identity


async def _member(db: Database, organization_id: str, role: str) -> str:
    email = f"{role}-{uuid.uuid4().hex[:6]}@team.test"
    async with db.transaction() as session:
        user_id = await people.ensure_user(session, email)
        await session.execute(
            memberships.insert().values(organization_id=uuid.UUID(organization_id), user_id=user_id, role=role)
        )
    return email


async def _team(deps: GatewayDeps, db: Database, accounts: Accounts) -> dict[str, Any]:
    """An organization with a first owner, a second owner and a member, each signed in."""
    first = f"first-{uuid.uuid4().hex[:6]}@team.test"
    organization = await accounts.create_organization(f"Team {uuid.uuid4().hex[:4]}", first)
    second, member = await _member(db, organization.id, "owner"), await _member(db, organization.id, "member")
    team: dict[str, Any] = {"id": organization.id, "name": organization.name}
    for name, email in (("first", first), ("second", second), ("member", member)):
        team[name] = await _signed_in(deps, db, organization.id, email)
    return team


async def _announced(db: Database, organization_id: str, event_type: str) -> list[dict[str, Any]]:
    async with db.read() as session:
        rows = await session.execute(
            select(outbox.table.c.payload).where(outbox.table.c.key == organization_id).order_by(outbox.table.c.id)
        )
    return [payload["data"] for payload in rows.scalars() if payload["type"] == event_type]


async def test_an_owner_is_removed_and_their_session_ends_at_once(
    deps: GatewayDeps, db: Database, accounts: Accounts
) -> None:
    team = await _team(deps, db, accounts)
    (_, first), (second_token, second) = team["first"], team["second"]
    await deps.organization.remove_member(first, second.user_id)
    assert await deps.sign_in.identify(second_token) is None
    assert (await _announced(db, team["id"], "organization.owners_changed"))[-1]["ownerEmails"] == [first.email]
    with pytest.raises(ApiError) as refused:
        await deps.organization.remove_member(first, first.user_id)
    assert (refused.value.code, refused.value.message) == ("conflict", ONLY_OWNER)


async def test_two_owners_removing_each_other_at_once_leave_one(
    deps: GatewayDeps, db: Database, accounts: Accounts
) -> None:
    team = await _team(deps, db, accounts)
    (_, first), (_, second) = team["first"], team["second"]
    results = await asyncio.gather(
        deps.organization.remove_member(first, second.user_id),
        deps.organization.remove_member(second, first.user_id),
        return_exceptions=True,
    )
    refusals = [r for r in results if isinstance(r, ApiError)]
    assert len(refusals) == 1 and refusals[0].code == "conflict", results
    members, _ = await deps.organization.members(first if results[0] is None else second)
    assert [m.role for m in members if m.role == "owner"] == ["owner"]


async def test_roles_change_but_the_last_owner_stays_one(deps: GatewayDeps, db: Database, accounts: Accounts) -> None:
    team = await _team(deps, db, accounts)
    (_, first), (_, second), (member_token, member) = team["first"], team["second"], team["member"]
    with pytest.raises(ApiError) as refused:
        await deps.organization.change_role(member, first.user_id, "member")
    assert refused.value.code == "forbidden"
    await deps.organization.change_role(first, member.user_id, "owner")
    assert (await deps.sign_in.identify(member_token)) is not None
    assert sorted((await _announced(db, team["id"], "organization.owners_changed"))[-1]["ownerEmails"]) == sorted(
        [first.email, second.email, member.email]
    )
    await deps.organization.change_role(first, member.user_id, "member")
    await deps.organization.change_role(first, second.user_id, "member")
    with pytest.raises(ApiError) as last:
        await deps.organization.change_role(first, first.user_id, "member")
    assert (last.value.code, last.value.message) == ("conflict", LAST_OWNER)


async def test_a_member_leaves_and_the_only_owner_cannot(deps: GatewayDeps, db: Database, accounts: Accounts) -> None:
    team = await _team(deps, db, accounts)
    (_, first), (_, second), (member_token, member) = team["first"], team["second"], team["member"]
    await deps.organization.leave(member)
    assert await deps.sign_in.identify(member_token) is None
    await deps.organization.leave(second)
    with pytest.raises(ApiError) as refused:
        await deps.organization.leave(first)
    assert (refused.value.code, refused.value.message) == ("conflict", ONLY_OWNER)


async def test_rename_and_delete_are_recorded_and_deletion_closes_every_way_in(
    deps: GatewayDeps, db: Database, accounts: Accounts
) -> None:
    team = await _team(deps, db, accounts)
    (_, first), (member_token, member) = team["first"], team["member"]
    key = mint_api_key("live")
    await accounts.create_api_key(team["id"], "live", ("read",), key)
    created = await deps.organization.create_api_key(first, "Shop", "test", "read,print")
    with pytest.raises(ApiError) as forbidden:
        await deps.organization.rename(member, "Mine")
    assert forbidden.value.code == "forbidden"
    await deps.organization.rename(first, "  Renamed  ")
    with pytest.raises(ApiError) as wrong:
        await deps.organization.delete(first, team["name"])
    assert wrong.value.code == "invalid_request", "the old name no longer confirms"

    entries = (await deps.organization.audit_log(first, PageRequest(limit=10))).items
    assert [(e.action, e.actor) for e in entries[:2]] == [
        ("organization.renamed", first.email),
        ("api_key.created", first.email),
    ]
    assert entries[0].details == {"from": team["name"], "to": "Renamed"}
    assert entries[1].target == f"Shop ({created.secret[:12]}…)" and entries[1].mode is None

    await deps.organization.delete(first, "Renamed")
    assert await accounts.identify(hash_api_key(key.secret)) is None
    assert await accounts.identify(hash_api_key(created.secret)) is None
    assert await deps.sign_in.identify(member_token) is None
    assert await deps.sign_in.organizations(first) == []
    [deleted] = await _announced(db, team["id"], "organization.deleted")
    assert deleted == {"id": team["id"], "name": "Renamed", "ownerEmails": []}


async def test_the_audit_log_names_an_api_key_and_keeps_to_its_mode(
    client: httpx.AsyncClient, deps: GatewayDeps, db: Database, accounts: Accounts, services: Services
) -> None:
    team = await _team(deps, db, accounts)
    (_, first) = team["first"]
    computer = services.devices.add_computer(team["id"], "test", name="Desk")
    printer = services.devices.add_printer(computer)
    key = mint_api_key("test")
    await accounts.create_api_key(team["id"], "test", ("read", "admin"), key, name="Ops")
    headers = {"Authorization": f"Bearer {key.secret}"}
    changed = await client.patch(f"/v1/printers/{printer.id}", headers=headers, json={"displayName": "Front"})
    assert changed.status_code == 200, changed.text
    [entry] = [e for e in (await deps.organization.audit_log(first, PageRequest())).items if e.target_id == printer.id]
    assert (entry.action, entry.actor, entry.mode, entry.details) == (
        "printer.updated",
        f"API key Ops ({key.display_prefix}…)",
        "test",
        {"displayName": "Front"},
    )
    live = replace(first, mode="live")
    assert all(e.target_id != printer.id for e in (await deps.organization.audit_log(live, PageRequest())).items)


@pytest.mark.parametrize("ending", ["revoke", "delete"])
async def test_the_replica_that_ends_a_key_refuses_it_before_any_notification(
    deps: GatewayDeps, db: Database, accounts: Accounts, ending: str
) -> None:
    """No listener runs here, so only the replica's own forgetting can refuse the key."""
    team = await _team(deps, db, accounts)
    (_, first) = team["first"]
    key = mint_api_key("test")
    key_id = await accounts.create_api_key(team["id"], "test", ("read",), key, name="Till")
    deps.verified_keys.trust(True)
    try:
        assert await deps.verified_keys.identify(hash_api_key(key.secret), accounts.identify) is not None
        if ending == "revoke":
            await deps.organization.revoke_api_key(first, key_id)
        else:
            await deps.organization.delete(first, team["name"])
        assert await deps.verified_keys.identify(hash_api_key(key.secret), accounts.identify) is None
    finally:
        deps.verified_keys.trust(False)
