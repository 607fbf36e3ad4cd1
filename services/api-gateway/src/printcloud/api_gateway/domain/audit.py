"""What the audit log records: who acted (a user, an API key, or the operator) and what changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from printcloud.api_gateway.domain.identity import ApiKeyIdentity, Identity, SessionIdentity

# Each action and how the log reads it ("<actor> <verb> <target>").
ACTIONS: dict[str, str] = {
    "api_key.created": "created the API key",
    "api_key.revoked": "revoked the API key",
    "member.invited": "invited",
    "invitation.revoked": "revoked the invitation of",
    "member.joined": "joined the organization",
    "member.removed": "removed",
    "member.left": "left the organization",
    "member.role_changed": "changed the role of",
    "organization.renamed": "renamed the organization",
    "organization.deleted": "deleted the organization",
    "computer.enrolled": "enrolled the computer",
    "computer.updated": "changed the computer",
    "computer.deleted": "deleted the computer",
    "pairing_code.created": "made the pairing code",
    "pairing_code.revoked": "revoked the pairing code",
    "printer.updated": "changed the printer",
    "webhook.created": "created the webhook endpoint",
    "webhook.updated": "changed the webhook endpoint",
    "webhook.deleted": "deleted the webhook endpoint",
}


@dataclass(frozen=True)
class Actor:
    user_id: str | None = None
    api_key_id: str | None = None


OPERATOR = Actor()


def actor_of(identity: Identity) -> Actor:
    if isinstance(identity, SessionIdentity):
        return Actor(user_id=identity.user_id)
    if isinstance(identity, ApiKeyIdentity):
        return Actor(api_key_id=identity.api_key_id)
    return OPERATOR


@dataclass(frozen=True)
class Change:
    action: str
    target_id: str = ""
    target: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    # None: the organization itself; otherwise the mode of the resource changed.
    mode: str | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown audit action {self.action!r}")


def describe(action: str) -> str:
    return ACTIONS.get(action, action)
