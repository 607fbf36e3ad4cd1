"""The pure rules of accounts: the role matrix, codes, session tokens and their lifetimes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from printcloud.api_gateway.domain.identity import ApiKeyIdentity, SessionIdentity
from printcloud.api_gateway.domain.roles import CANCEL, MANAGE, role_allows
from printcloud.api_gateway.domain.sessions import Lifetimes, csrf_matches, csrf_token, hash_token, mint_session
from printcloud.api_gateway.domain.sign_in import code_matches, hash_code, may_get_code, mint_code
from printcloud.contracts.errors import ApiError

TENANT = {"organization_id": "o", "organization_name": "Acme", "plan": "free", "mode": "test"}


@pytest.mark.parametrize(
    ("role", "allowed"),
    [("owner", {"read", "print", "admin", MANAGE, CANCEL}), ("member", {"read", "print"}), ("stranger", set())],
)
def test_role_matrix(role: str, allowed: set[str]) -> None:
    assert {scope for scope in ("read", "print", "admin", MANAGE, CANCEL) if role_allows(role, scope)} == allowed


def test_a_session_is_refused_by_role_and_a_key_by_scope() -> None:
    member = SessionIdentity(**TENANT, session_id="s", user_id="u", email="m@x.test", role="member")
    key = ApiKeyIdentity(**TENANT, api_key_id="k", scopes=frozenset({"read"}))
    member.authorize("print")
    with pytest.raises(ApiError) as refused:
        member.authorize("admin")
    assert refused.value.code == "forbidden" and "member" in refused.value.message
    with pytest.raises(ApiError) as lacking:
        key.authorize("print")
    assert lacking.value.code == "insufficient_scope"
    assert (member.principal, key.principal) == ("user:u", "key:k")


def test_codes_are_six_random_digits_bound_to_their_address() -> None:
    codes = {mint_code("a@x.test").code for _ in range(50)}
    assert len(codes) > 45 and all(len(c) == 6 and c.isdigit() for c in codes)
    code = mint_code("a@x.test")
    assert code.code not in code.code_hash
    assert code_matches(code.code_hash, "a@x.test", f" {code.code[:3]}-{code.code[3:]} ")
    assert not code_matches(code.code_hash, "b@x.test", code.code)
    assert hash_code("a@x.test", "123456") != hash_code("b@x.test", "123456")


@pytest.mark.parametrize(
    ("account", "invited", "signup", "sent"),
    [(True, False, "closed", True), (False, True, "closed", True), (False, False, "closed", False),
     (False, False, "open", True)],
)  # fmt: skip
def test_who_gets_a_code(account: bool, invited: bool, signup: str, sent: bool) -> None:
    assert may_get_code(has_account=account, invited=invited, signup=signup) is sent


def test_session_tokens_and_their_csrf_tokens() -> None:
    first, second = mint_session(), mint_session()
    assert first.token != second.token and first.token_hash == hash_token(first.token) != first.token
    assert csrf_token(first.token) != csrf_token(second.token)
    assert csrf_matches(first.token, csrf_token(first.token))
    assert not csrf_matches(first.token, csrf_token(second.token)) and not csrf_matches(first.token, None)


def test_a_session_ends_when_idle_or_at_its_absolute_end() -> None:
    lifetimes = Lifetimes(idle=timedelta(hours=1), absolute=timedelta(days=1))
    now = datetime(2030, 1, 1, tzinfo=UTC)
    assert lifetimes.is_live(now, last_seen_at=now - timedelta(minutes=59), expires_at=now + timedelta(hours=5))
    assert not lifetimes.is_live(now, last_seen_at=now - timedelta(minutes=61), expires_at=now + timedelta(hours=5))
    assert not lifetimes.is_live(now, last_seen_at=now, expires_at=now)
