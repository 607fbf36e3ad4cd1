"""Who is calling, and for which organization and mode: an API key or a dashboard session.

Both credentials produce an `Identity`; the routes see only that. Keys are limited by their
scopes (`403 insufficient_scope`), sessions by their role (`403 forbidden`).
"""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.api_gateway.domain.roles import role_allows
from printcloud.contracts.errors import ApiError


@dataclass(frozen=True)
class Identity:
    organization_id: str
    organization_name: str
    plan: str
    mode: str

    @property
    def principal(self) -> str:
        """A stable name for the caller, e.g. for rate limits and logs; never a secret."""
        raise NotImplementedError

    def authorize(self, scope: str) -> None:
        """Raises the 403 this caller gets for an action needing `scope`."""
        raise NotImplementedError


@dataclass(frozen=True)
class ApiKeyIdentity(Identity):
    api_key_id: str
    scopes: frozenset[str]

    @property
    def principal(self) -> str:
        return f"key:{self.api_key_id}"

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    def authorize(self, scope: str) -> None:
        if not self.has_scope(scope):
            raise ApiError("insufficient_scope", f"This API key lacks the `{scope}` scope.")


@dataclass(frozen=True)
class SessionIdentity(Identity):
    session_id: str
    user_id: str
    email: str
    role: str

    @property
    def principal(self) -> str:
        return f"user:{self.user_id}"

    def authorize(self, scope: str) -> None:
        if not role_allows(self.role, scope):
            raise ApiError(
                "forbidden", f"Your role ({self.role}) does not allow this; ask an owner of the organization."
            )
