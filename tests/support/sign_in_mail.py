"""The dashboard's sign-in e-mails as a test receives them: from a real SMTP server (the dev stack's
sink) on a free loopback port."""

from __future__ import annotations

import asyncio
import re
from email.message import Message

from printcloud.devstack.smtp_sink import SmtpSink

_CODE = re.compile(r"sign-in code is (\d{6})")


def mails_to(sink: SmtpSink, email: str) -> list[Message]:
    return [m for m in sink.received() if m["To"] == email]


def text_of(mail: Message) -> str:
    body = mail.get_payload(decode=True)
    assert isinstance(body, bytes)
    return body.decode()


async def mailed_code(sink: SmtpSink, email: str) -> str:
    """The code of the last sign-in e-mail to `email`, once one has arrived (within 10 s)."""
    for _ in range(200):
        mails = mails_to(sink, email)
        if mails:
            found = _CODE.search(text_of(mails[-1]))
            assert found
            return found.group(1)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no code e-mailed to {email}")
