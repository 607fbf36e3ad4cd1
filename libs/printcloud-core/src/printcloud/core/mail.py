"""Sending e-mail over SMTP, as the settings of a service that sends mail (`SmtpSettings`) say."""

from __future__ import annotations

import smtplib
from dataclasses import dataclass, field
from email.message import EmailMessage

from printcloud.core.settings import SmtpSettings


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    username: str
    password: str = field(repr=False)
    starttls: bool
    sender: str
    timeout: float = 30.0

    @classmethod
    def from_settings(cls, settings: SmtpSettings) -> SmtpServer:
        return cls(
            host=settings.smtp_host,
            port=settings.smtp_port,
            username=settings.smtp_username,
            password=settings.smtp_password.get_secret_value(),
            starttls=settings.smtp_starttls,
            sender=settings.smtp_sender,
        )

    @property
    def configured(self) -> bool:
        return bool(self.host)

    def send(self, recipient: str, subject: str, body: str) -> None:
        """Blocking; run in a thread. Raises OSError or smtplib.SMTPException on failure."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = recipient
        message["Subject"] = subject
        message.set_content(body)
        with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
            if self.starttls:
                smtp.starttls()
            if self.username:
                smtp.login(self.username, self.password)
            # The envelope recipient is the address given, as given: left to the library, it would be
            # whatever its parser reads in the `To` header (`Name <other@x>` is other@x, `a,b@x` two).
            smtp.send_message(message, to_addrs=[recipient])
