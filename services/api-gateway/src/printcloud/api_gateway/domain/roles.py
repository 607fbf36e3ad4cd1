"""The role matrix of dashboard users (docs/api.md, "Roles").

A role grants the API scopes its holder may use through a session, plus the account actions
(API keys, members and invitations) that exist only for sessions.
"""

from __future__ import annotations

ROLES: tuple[str, ...] = ("owner", "member")
OWNER, MEMBER = ROLES

# Members read everything, print and cancel; `admin` (printer, computer and webhook changes,
# enrolment) stays with owners.
_SCOPES_BY_ROLE: dict[str, frozenset[str]] = {
    OWNER: frozenset({"read", "print", "admin"}),
    MEMBER: frozenset({"read", "print"}),
}
# Managing the organization itself: API keys, members, invitations, plan.
MANAGE = "manage"
_MANAGERS = frozenset({OWNER})


def role_allows(role: str, scope: str) -> bool:
    if scope == MANAGE:
        return role in _MANAGERS
    return scope in _SCOPES_BY_ROLE.get(role, frozenset())


def check_role(value: str) -> str:
    if value not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    return value
