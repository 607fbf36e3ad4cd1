"""`printcloud`: operator commands run against the gateway's database.

stdout carries only the command's JSON result, so scripts can parse it; logs and errors go to
stderr, one line each. Operator mistakes (unknown organization, bad mode or scope, a database URL
or TLS setting that cannot work) exit with status 2; a database that does not answer with 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from printcloud.api_gateway.domain.accounts import organization_name
from printcloud.api_gateway.domain.api_keys import MODES, key_name, mint_api_key, parse_scopes
from printcloud.api_gateway.domain.email_address import mailbox
from printcloud.api_gateway.domain.plans import PlanCatalog
from printcloud.api_gateway.persistence.schema import migrate_gateway
from printcloud.api_gateway.settings import PlanSettings
from printcloud.api_gateway.use_cases.accounts import Accounts, UnknownOrganization
from printcloud.core.db.connection_problems import first_database_problem
from printcloud.core.db.database import Database
from printcloud.core.db.url import SETTING, DatabaseUrl
from printcloud.core.ids import parse_uuid
from printcloud.core.telemetry.logs import JsonFormatter

USAGE_ERROR = 2
UNREACHABLE = 1
STACK_FILE = Path(".dev") / "stack.json"


class OperatorError(Exception):
    """A mistake in the command line or the environment, reported without a traceback."""


class DatabaseUnreachable(Exception):
    """The database does not answer now; the same command may work later."""


def database_url(start: Path) -> tuple[str, str]:
    """PRINTCLOUD_DATABASE_URL, else the `make dev` stack file found in `start` or a parent; with
    where it came from, for errors."""
    from_env = os.environ.get(SETTING)
    if from_env:
        return from_env, SETTING
    for directory in (start, *start.parents):
        candidate = directory / STACK_FILE
        if candidate.is_file():
            try:
                return str(json.loads(candidate.read_text())["database_url"]), f"{candidate} database_url"
            except (ValueError, KeyError, TypeError) as exc:
                raise OperatorError(f"{candidate} has no usable `database_url`: {exc}") from None
    raise OperatorError(
        "no database configured: set PRINTCLOUD_DATABASE_URL, or run this inside a checkout where `make dev` is running"
    )


def _organization_id(value: str) -> str:
    parsed = parse_uuid(value)
    if parsed is None:
        raise OperatorError(f"no organization {value!r}")
    return str(parsed)


async def create_org(accounts: Accounts, args: argparse.Namespace) -> dict[str, Any]:
    try:
        name = organization_name(args.name)
        email = mailbox(args.owner_email)
    except ValueError as exc:
        raise OperatorError(str(exc)) from None
    organization = await accounts.create_organization(name, email)
    return {"id": organization.id, "name": organization.name}


async def create_key(accounts: Accounts, args: argparse.Namespace) -> dict[str, Any]:
    if args.mode not in MODES:
        raise OperatorError(f"mode must be one of {', '.join(MODES)}, not {args.mode!r}")
    try:
        scopes = parse_scopes(args.scopes)
    except ValueError as exc:
        raise OperatorError(str(exc)) from None
    organization_id = _organization_id(args.org)
    try:
        name = key_name(args.name)
    except ValueError as exc:
        raise OperatorError(str(exc)) from None
    key = mint_api_key(args.mode)
    try:
        key_id = await accounts.create_api_key(organization_id, args.mode, scopes, key, name)
    except UnknownOrganization:
        raise OperatorError(f"no organization {args.org!r}") from None
    return {"id": key_id, "key": key.secret}


async def set_plan(accounts: Accounts, args: argparse.Namespace) -> dict[str, Any]:
    try:
        plan = PlanCatalog(PlanSettings().plans).checked(args.plan)
    except ValueError as exc:
        raise OperatorError(str(exc)) from None
    organization_id = _organization_id(args.org)
    try:
        await accounts.set_plan(organization_id, plan)
    except UnknownOrganization:
        raise OperatorError(f"no organization {args.org!r}") from None
    return {"id": organization_id, "plan": plan}


async def revoke_key(accounts: Accounts, args: argparse.Namespace) -> dict[str, Any]:
    key_id = parse_uuid(args.key_id)
    if key_id is None or not await accounts.revoke_api_key(str(key_id)):
        raise OperatorError(f"no active API key {args.key_id!r}")
    return {"id": str(key_id), "revoked": True}


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="printcloud", description="PrintCloud operator commands.")
    groups = root.add_subparsers(dest="group", required=True)
    admin = groups.add_parser("admin", help="manage organizations, API keys and plans").add_subparsers(
        dest="command", required=True
    )

    org = admin.add_parser(
        "create-org", help="create an organization and its owner, who can sign in to the dashboard; prints {id, name}"
    )
    org.add_argument("--name", required=True)
    org.add_argument("--owner-email", required=True)
    org.set_defaults(run=create_org)

    key = admin.add_parser("create-key", help="create an API key; prints {id, key} (the key is shown only once)")
    key.add_argument("--org", required=True, help="organization id")
    key.add_argument("--mode", required=True, help=" or ".join(MODES))
    key.add_argument("--scopes", required=True, help="comma-separated: read,print,admin")
    key.add_argument("--name", default="", help="shown in the dashboard's key list")
    key.set_defaults(run=create_key)

    revoke = admin.add_parser("revoke-key", help="revoke an API key at once, on every replica; prints {id, revoked}")
    revoke.add_argument("--key-id", required=True, help="the id create-key printed (also in the dashboard's key list)")
    revoke.set_defaults(run=revoke_key)

    plan = admin.add_parser("set-plan", help="put an organization on a plan (PRINTCLOUD_PLANS); prints {id, plan}")
    plan.add_argument("--org", required=True, help="organization id")
    plan.add_argument("--plan", required=True, help="a plan name from PRINTCLOUD_PLANS")
    plan.set_defaults(run=set_plan)
    return root


async def checked_database_url(start: Path) -> str:
    """The database URL, once one connection to it has worked; else one line saying why not."""
    url, source = database_url(start)
    try:
        target = DatabaseUrl.parse(url)
    except ValueError as exc:
        raise OperatorError(f"{source}: {exc}") from None
    problem = await first_database_problem(url)
    if problem is None:
        return url
    sentence = problem.sentence("database", source, target.redacted())
    raise OperatorError(sentence) if problem.misconfigured else DatabaseUnreachable(sentence)


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    url = await checked_database_url(Path.cwd())
    await migrate_gateway(url)
    db = Database.connect(url, application_name="printcloud-cli")
    try:
        run: Callable[[Accounts, argparse.Namespace], Awaitable[dict[str, Any]]] = args.run
        return await run(Accounts(db), args)
    finally:
        await db.close()


def main(argv: Sequence[str] | None = None) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter("printcloud-cli"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    args = parser().parse_args(argv)
    try:
        result = asyncio.run(_run(args))
    except OperatorError as exc:
        print(f"printcloud: {exc}", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    except DatabaseUnreachable as exc:
        print(f"printcloud: {exc}", file=sys.stderr)
        sys.exit(UNREACHABLE)
    print(json.dumps(result))
