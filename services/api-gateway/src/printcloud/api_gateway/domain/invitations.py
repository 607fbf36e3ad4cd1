"""The e-mail an invited address receives."""

from __future__ import annotations

ROLE_SUMMARIES = {
    "owner": "owner: manages API keys, members, webhooks, printers and computers, and can cancel jobs",
    "member": "member: sees everything and prints, but cannot cancel jobs or change settings",
}


def invitation_email(organization: str, inviter: str, role: str, sign_in_url: str) -> tuple[str, str]:
    """(subject, body). No link in the body carries a secret: the invitation is accepted by signing
    in with an e-mailed code, so a forwarded e-mail lets nobody else in."""
    subject = f"{inviter} invited you to {organization} on PrintCloud"
    body = (
        f"{inviter} invited you to join {organization} on PrintCloud as {ROLE_SUMMARIES[role]}.\n\n"
        f"To accept, sign in with this e-mail address:\n\n    {sign_in_url}\n\n"
        "We will e-mail you a one-time code; there is no password. If you did not expect this\n"
        "invitation, ignore this e-mail: nothing happens until you sign in.\n"
    )
    return subject, body
