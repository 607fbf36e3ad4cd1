"""How processes reach the Kafka cluster: its addresses, TLS and SASL, and the replication factor
of the topics they create. Every aiokafka client takes its options from `KafkaCluster.options`.

With `SSL` or `SASL_SSL` the brokers' certificates are always verified, host name included,
against `ssl_cafile` (else the system's roots); `ssl_certfile` and `ssl_keyfile` give a client
certificate to brokers that authenticate clients by TLS. The files are read by `options()`, which
settings call once at start-up, so a missing or malformed file stops the start in one line
naming its setting. `tls_problem()` shakes hands with the brokers before any client does: aiokafka
would report a certificate it refuses only as a broker it cannot reach.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from typing import Any

from printcloud.core.db.connection_problems import ConnectionProblem, tls_problem
from printcloud.core.kafka import no_topic_autocreation

no_topic_autocreation.install()

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
TLS_PROTOCOLS = ("SSL", "SASL_SSL")
HANDSHAKE_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class KafkaCluster:
    bootstrap: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str = ""
    sasl_username: str = ""
    sasl_password: str = ""
    ssl_cafile: str = ""
    ssl_certfile: str = ""
    ssl_keyfile: str = ""
    topic_replication_factor: int = 1

    def __post_init__(self) -> None:
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise ValueError(f"Kafka security protocol must be one of {', '.join(SECURITY_PROTOCOLS)}")
        if self.security_protocol.startswith("SASL_") and self.sasl_mechanism not in SASL_MECHANISMS:
            raise ValueError(f"Kafka SASL mechanism must be one of {', '.join(SASL_MECHANISMS)}")
        if self.topic_replication_factor < 1:
            raise ValueError("Kafka topic replication factor must be at least 1")
        files = {name: path for name, path in self._files().items() if path}
        if files and self.security_protocol not in TLS_PROTOCOLS:
            # A CA or a certificate given with a plaintext protocol is a half-done TLS set-up.
            raise ValueError(
                f"{', '.join(files)} given, but PRINTCLOUD_KAFKA_SECURITY_PROTOCOL is {self.security_protocol}: "
                "set SSL or SASL_SSL"
            )
        if self.ssl_keyfile and not self.ssl_certfile:
            raise ValueError("PRINTCLOUD_KAFKA_SSL_KEYFILE given without PRINTCLOUD_KAFKA_SSL_CERTFILE")

    def __repr__(self) -> str:
        # The password never reaches logs, even through a repr.
        return f"KafkaCluster(bootstrap={self.bootstrap!r}, security_protocol={self.security_protocol!r})"

    def options(self) -> dict[str, Any]:
        """Keyword arguments for any aiokafka client (producer, consumer, admin)."""
        options: dict[str, Any] = {
            "bootstrap_servers": self.bootstrap,
            "security_protocol": self.security_protocol,
        }
        if self.security_protocol in TLS_PROTOCOLS:
            options["ssl_context"] = self._ssl_context()
        if self.security_protocol.startswith("SASL_"):
            options["sasl_mechanism"] = self.sasl_mechanism
            options["sasl_plain_username"] = self.sasl_username
            options["sasl_plain_password"] = self.sasl_password
        return options

    async def tls_problem(self) -> ConnectionProblem | None:
        """Why a TLS handshake with the bootstrap brokers fails, if it does: the first broker that
        answers decides; when none answers, the outage (the broker check waits for it as before)."""
        if self.security_protocol not in TLS_PROTOCOLS:
            return None
        context = self._ssl_context()
        outage = None
        for address in self.bootstrap.split(","):
            host, _, port = address.strip().rpartition(":")
            try:
                async with asyncio.timeout(HANDSHAKE_TIMEOUT_SECONDS):
                    _, writer = await asyncio.open_connection(host.strip("[]"), int(port), ssl=context)
            except Exception as error:  # noqa: BLE001 - every failure is described, none raised
                if problem := tls_problem(error):
                    return problem
                outage = ConnectionProblem(f"{type(error).__name__}: {error or 'no answer'}", misconfigured=False)
                continue
            writer.close()
            return None
        return outage

    def _files(self) -> dict[str, str]:
        return {
            "PRINTCLOUD_KAFKA_SSL_CAFILE": self.ssl_cafile,
            "PRINTCLOUD_KAFKA_SSL_CERTFILE": self.ssl_certfile,
            "PRINTCLOUD_KAFKA_SSL_KEYFILE": self.ssl_keyfile,
        }

    def _ssl_context(self) -> ssl.SSLContext:
        """aiokafka's `create_ssl_context` in two steps, so that a failure names its file."""
        for name, path in self._files().items():
            if path:
                try:
                    with open(path, "rb"):
                        pass
                except OSError as error:
                    raise ValueError(f"{name} {path}: {error.strerror}") from None
        try:
            context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=self.ssl_cafile or None)
        except ssl.SSLError as error:
            raise ValueError(
                f"PRINTCLOUD_KAFKA_SSL_CAFILE {self.ssl_cafile}: no usable PEM certificate ({error.reason})"
            ) from None
        if self.ssl_certfile:
            try:
                # The key must not be encrypted: without a password OpenSSL would prompt on a terminal.
                context.load_cert_chain(self.ssl_certfile, self.ssl_keyfile or None, password=_no_password)
            except (ssl.SSLError, ValueError) as error:
                raise ValueError(
                    "PRINTCLOUD_KAFKA_SSL_CERTFILE/_KEYFILE: not a certificate and its unencrypted key "
                    f"({getattr(error, 'reason', None) or error})"
                ) from None
        return context


def _no_password() -> str:
    raise ValueError("the key is encrypted")


def as_cluster(kafka: KafkaCluster | str) -> KafkaCluster:
    """`kafka` itself, or a plaintext cluster at the bootstrap list `kafka` (tests, the dev stack)."""
    return kafka if isinstance(kafka, KafkaCluster) else KafkaCluster(kafka)
