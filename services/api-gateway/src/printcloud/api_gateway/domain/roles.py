"""The role matrix of dashboard users (docs/api.md, "Roles").

A role grants the API scopes its holder may use through a session, plus the account actions
(API keys, members and invitations) that exist only for sessions.
"""

from __future__ import annotations

ROLES: tuple[str, ...] = ("owner", "member")
OWNER, MEMBER = ROLES

# Members read everything and print; `admin` (printer, computer and webhook changes, enrolment)
# stays with owners.
_SCOPES_BY_ROLE: dict[str, frozenset[str]] = {
    OWNER: frozenset({"read", "print", "admin"}),
    MEMBER: frozenset({"read", "print"}),
}
# Managing the organization itself: API keys, members, invitations, plan.
MANAGE = "manage"
# Cancelling a job: the spec's cancel endpoint says "a dashboard user with the member role gets
# 403", so through a session it is an owner's action, although a key needs only `print` for it.
CANCEL = "cancel"
_OWNER_ACTIONS = frozenset({MANAGE, CANCEL})
_MANAGERS = frozenset({OWNER})


def role_allows(role: str, scope: str) -> bool:
    if scope in _OWNER_ACTIONS:
        return role in _MANAGERS
    return scope in _SCOPES_BY_ROLE.get(role, frozenset())


def check_role(value: str) -> str:
    if value not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    return value
