"""Signing in with an e-mailed code, and the sessions it opens (docs/api.md, "Dashboard sign-in").

Each use case is one transaction. Failures that must be remembered (a wrong try) are committed
before the error is raised, so that raising does not roll them back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.domain import sessions as session_rules
from printcloud.api_gateway.domain.audit import Actor, Change
from printcloud.api_gateway.domain.email_address import mailbox
from printcloud.api_gateway.domain.identity import SessionIdentity
from printcloud.api_gateway.domain.roles import OWNER
from printcloud.api_gateway.domain.sign_in import (
    MAX_WRONG_TRIES,
    code_matches,
    may_get_code,
    mint_code,
    sign_in_email,
)
from printcloud.api_gateway.persistence import audit, people, sessions, sign_in
from printcloud.api_gateway.settings import DashboardSettings
from printcloud.api_gateway.use_cases import announcements
from printcloud.api_gateway.use_cases.mail import Mailer
from printcloud.contracts.errors import ApiError
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow

FIRST_MODE = "test"
# The dashboard's sign-in page, under the gateway's public URL.
SIGN_IN_PATH = "/dashboard/sign-in"
# A session's organization and mode are the ones it last chose; a new one starts in test mode.
SIGNED_OUT = "You are signed out. Sign in again with a new code."
# One answer for a wrong, expired, used or ended code, and for an address that has no code: telling
# them apart would tell a stranger which addresses were sent a code, hence have an account.
_REFUSED = (
    "This code is wrong, has expired or was already used. Check the e-mail, or ask for a new code: "
    f"a code works once, for 10 minutes, and ends after {MAX_WRONG_TRIES} wrong tries."
)


def _address(text: str) -> str:
    try:
        return mailbox(text)
    except ValueError as exc:
        raise ApiError("invalid_request", str(exc)) from None


@dataclass(frozen=True)
class SignedIn:
    token: str
    identity: SessionIdentity


@dataclass
class SignIn:
    db: Database
    mailer: Mailer
    settings: DashboardSettings

    @property
    def lifetimes(self) -> session_rules.Lifetimes:
        return session_rules.Lifetimes(self.settings.session_idle, self.settings.session_absolute)

    async def request_code(self, email_text: str, client_address: str) -> None:
        """Sends a code when the address may sign in; answers the same way when it may not."""
        email = _address(email_text)
        s = self.settings
        now = utcnow()
        window = now - timedelta(seconds=s.sign_in_window_seconds)
        subjects = (
            (f"email:{email}", s.sign_in_requests_per_address),
            (f"client:{client_address}", s.sign_in_requests_per_client),
        )
        code = None
        async with self.db.transaction() as session:
            for subject, limit in subjects:
                if await sign_in.requests_since(session, subject, window) >= limit:
                    raise ApiError(
                        "rate_limited", "Too many sign-in codes were asked for. Wait a few minutes and try again."
                    )
            for subject, _ in subjects:
                await sign_in.record_request(session, subject)
            allowed = may_get_code(
                has_account=await people.user_id_by_email(session, email) is not None,
                invited=await people.is_invited(session, email),
                signup=s.signup,
            )
            if allowed:
                code = mint_code(email)
                await sign_in.replace_code(
                    session, email, code.code_hash, now + timedelta(seconds=s.sign_in_code_seconds)
                )
        if code is not None:
            # Sent after the answer: its timing must not tell whether the address has an account.
            minutes = round(s.sign_in_code_seconds / 60)
            mail = sign_in_email(code.code, minutes, f"{s.public_url}{SIGN_IN_PATH}")
            self.mailer.send_later("sign-in code", email, *mail)

    async def verify_code(self, email_text: str, code_text: str) -> SignedIn:
        email = _address(email_text)
        now = utcnow()
        accepted = False
        signed_in: SignedIn | None = None
        async with self.db.transaction() as session:
            stored = await sign_in.live_code(session, email, now)
            if stored is not None and code_matches(stored.code_hash, email, code_text):
                accepted = True
                await sign_in.end_code(session, stored.id)
                signed_in = await self._open_session(session, email, now)
            elif stored is not None:
                last_try = stored.wrong_tries + 1 >= MAX_WRONG_TRIES
                await sign_in.record_wrong_try(session, stored.id, end=last_try)
        if not accepted:
            raise ApiError("unauthorized", _REFUSED)
        if signed_in is None:
            raise ApiError("forbidden", "This address belongs to no organization. Ask an owner to invite you.")
        return signed_in

    async def _open_session(self, session: AsyncSession, email: str, now: datetime) -> SignedIn | None:
        user_id = await people.ensure_user(session, email)
        for accepted in await people.accept_invitations(session, email, user_id):
            change = Change("member.joined", user_id, "", {"role": accepted.role})
            await audit.add(session, accepted.organization_id, Actor(user_id=user_id), change)
            if accepted.role == OWNER:
                await announcements.owners_changed(session, accepted.organization_id)
        joined = await people.memberships_of(session, user_id)
        if not joined and self.settings.signup == "open":
            name = f"{email}'s organization"
            organization_id = await people.insert_organization(session, name, user_id)
            await announcements.organization_created(session, organization_id, name, email)
            joined = await people.memberships_of(session, user_id)
        if not joined:
            return None
        first = joined[0]
        new = session_rules.mint_session()
        session_id = await sessions.insert_session(
            session, new.token_hash, user_id, first.organization_id, FIRST_MODE, now + self.lifetimes.absolute
        )
        identity = SessionIdentity(
            organization_id=first.organization_id, organization_name=first.organization_name, plan=first.plan,
            mode=FIRST_MODE, session_id=session_id, user_id=user_id, email=email, role=first.role,
        )  # fmt: skip
        return SignedIn(new.token, identity)

    async def identify(self, token: str) -> SessionIdentity | None:
        """The identity of a live session, or None (unknown, revoked, expired, or no longer a member)."""
        if not session_rules.is_well_formed(token):
            return None
        now = utcnow()
        async with self.db.transaction() as session:
            found = await sessions.find_session(session, session_rules.hash_token(token))
            if (
                found is None
                or found.role is None
                or not self.lifetimes.is_live(now, found.last_seen_at, found.expires_at)
            ):
                return None
            if now - found.last_seen_at >= session_rules.LAST_SEEN_PRECISION:
                await sessions.touch(session, found.id, now)
        return SessionIdentity(
            organization_id=found.organization_id, organization_name=found.organization_name, plan=found.plan,
            mode=found.mode, session_id=found.id, user_id=found.user_id, email=found.email, role=found.role,
        )  # fmt: skip

    async def sign_out(self, token: str) -> None:
        async with self.db.transaction() as session:
            await sessions.revoke(session, session_rules.hash_token(token), utcnow())

    async def switch(self, identity: SessionIdentity, organization_id: str, mode: str) -> None:
        """Makes the session act for another of the user's organizations, or the other mode."""
        if mode not in ("test", "live"):
            raise ApiError("invalid_request", "Mode must be test or live.")
        async with self.db.transaction() as session:
            joined = {m.organization_id for m in await people.memberships_of(session, identity.user_id)}
            if organization_id not in joined:
                raise ApiError("not_found", "No such organization.")
            await sessions.switch(session, identity.session_id, organization_id, mode)

    async def organizations(self, identity: SessionIdentity) -> list[people.Membership]:
        async with self.db.read() as session:
            return await people.memberships_of(session, identity.user_id)

    async def purge(self) -> None:
        """Drops what can no longer matter: ended sessions, old codes and old code requests."""
        long_ago = utcnow() - timedelta(seconds=self.settings.sign_in_window_seconds) - timedelta(days=1)
        async with self.db.transaction() as session:
            await sessions.purge_ended(session, utcnow() - timedelta(days=1))
            await sign_in.purge_before(session, long_ago)
