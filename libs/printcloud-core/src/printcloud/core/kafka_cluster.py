"""How processes reach the Kafka cluster: its addresses, TLS and SASL, and the replication factor
of the topics they create. Every aiokafka client takes its options from `KafkaCluster.options`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiokafka.helpers import create_ssl_context

from printcloud.core import no_topic_autocreation

no_topic_autocreation.install()

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclass(frozen=True)
class KafkaCluster:
    bootstrap: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str = ""
    sasl_username: str = ""
    sasl_password: str = ""
    ssl_cafile: str = ""
    topic_replication_factor: int = 1

    def __post_init__(self) -> None:
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise ValueError(f"Kafka security protocol must be one of {', '.join(SECURITY_PROTOCOLS)}")
        if self.security_protocol.startswith("SASL_") and self.sasl_mechanism not in SASL_MECHANISMS:
            raise ValueError(f"Kafka SASL mechanism must be one of {', '.join(SASL_MECHANISMS)}")
        if self.topic_replication_factor < 1:
            raise ValueError("Kafka topic replication factor must be at least 1")

    def __repr__(self) -> str:
        # The password never reaches logs, even through a repr.
        return f"KafkaCluster(bootstrap={self.bootstrap!r}, security_protocol={self.security_protocol!r})"

    def options(self) -> dict[str, Any]:
        """Keyword arguments for any aiokafka client (producer, consumer, admin)."""
        options: dict[str, Any] = {
            "bootstrap_servers": self.bootstrap,
            "security_protocol": self.security_protocol,
        }
        if self.security_protocol in ("SSL", "SASL_SSL"):
            options["ssl_context"] = create_ssl_context(cafile=self.ssl_cafile or None)
        if self.security_protocol.startswith("SASL_"):
            options["sasl_mechanism"] = self.sasl_mechanism
            options["sasl_plain_username"] = self.sasl_username
            options["sasl_plain_password"] = self.sasl_password
        return options


def as_cluster(kafka: KafkaCluster | str) -> KafkaCluster:
    """`kafka` itself, or a plaintext cluster at the bootstrap list `kafka` (tests, the dev stack)."""
    return kafka if isinstance(kafka, KafkaCluster) else KafkaCluster(kafka)
