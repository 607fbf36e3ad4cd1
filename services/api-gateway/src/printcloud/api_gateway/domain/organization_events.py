"""What the gateway tells the other services about organizations, on `domain.events`: that one was
made (devices builds its test-mode virtual computer), that its owners changed and that it was
deleted. Owners' addresses travel along because the webhooks service e-mails owners and may not
read the gateway's schema; every event is in test mode, as organizations have no mode."""

from __future__ import annotations

from printcloud.core.kafka.envelope import Message


def organization_created(organization_id: str, name: str, owner_email: str) -> Message:
    return _about(organization_id, "organization.created", {"name": name, "ownerEmails": [owner_email]})


def owners_changed(organization_id: str, owner_emails: list[str]) -> Message:
    """`ownerEmails` replaces the list the receivers keep."""
    return _about(organization_id, "organization.owners_changed", {"ownerEmails": owner_emails})


def organization_deleted(organization_id: str, name: str) -> Message:
    """Nobody is e-mailed about the organization any more."""
    return _about(organization_id, "organization.deleted", {"name": name, "ownerEmails": []})


def _about(organization_id: str, event_type: str, data: dict[str, object]) -> Message:
    return Message(type=event_type, organization_id=organization_id, mode="test", data={"id": organization_id, **data})
