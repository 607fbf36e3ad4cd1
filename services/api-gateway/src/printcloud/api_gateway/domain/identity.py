"""Who is calling: the API key that authenticated the request and the tenant it belongs to."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ApiKeyIdentity:
    api_key_id: str
    organization_id: str
    organization_name: str
    plan: str
    mode: str
    scopes: frozenset[str]

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes
