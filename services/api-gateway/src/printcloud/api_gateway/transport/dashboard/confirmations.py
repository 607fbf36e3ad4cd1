"""What a destructive action asks before it runs, in one place: the confirmation page (no script)
and the dialog the page's script opens say the same words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Confirmation:
    title: str
    consequence: str
    button: str


_KINDS: dict[str, tuple[str, str, str]] = {
    "revoke-key": (
        "Revoke the API key {name}?",
        "Every request made with it is refused from the next one on, on every server. This cannot be undone: "
        "make a new key to replace it.",
        "Revoke key",
    ),
    "revoke-invitation": (
        "Revoke the invitation of {name}?",
        "The address can no longer join by signing in. You can invite it again later.",
        "Revoke invitation",
    ),
    "remove-member": (
        "Remove {name} from the organization?",
        "Their sessions in this organization end at once. Their past actions stay in the audit log.",
        "Remove member",
    ),
    "cancel-job": (
        "Cancel the print job {name}?",
        "The job will not be printed. Once its agent has received it, a job can no longer be cancelled.",
        "Cancel job",
    ),
    "delete-webhook": (
        "Delete the webhook endpoint {name}?",
        "It receives no more events, and the deliveries waiting for it are dropped with its delivery log. "
        "Its signing secret cannot be recovered.",
        "Delete endpoint",
    ),
    "delete-computer": (
        "Delete the computer {name}?",
        "Its printers are removed, its agent is disconnected at once and its credentials are revoked: to use "
        "it again, enrol it again. Jobs already queued for it expire.",
        "Delete computer",
    ),
    "revoke-pairing-code": (
        "Revoke the pairing code {name}?",
        "It enrols no more computers, from now on; it stays listed with the computers it enrolled. Those keep "
        "their credentials: disable or delete them to cut them off.",
        "Revoke code",
    ),
    "remove-paper": (
        "Remove the custom paper {name}?",
        "Jobs can no longer ask for it by name; jobs already accepted keep the size they were given.",
        "Remove paper",
    ),
    "leave": (
        "Leave {name}?",
        "You lose access to its printers, jobs and settings at once. An owner can invite you again.",
        "Leave organization",
    ),
}


def confirmation(kind: str, name: str) -> Confirmation:
    title, consequence, button = _KINDS[kind]
    return Confirmation(title.format(name=name), consequence, button)
