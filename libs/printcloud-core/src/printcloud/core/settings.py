"""Settings shared by every process. Each service extends `CommonSettings` with its own fields.

Everything comes from `PRINTCLOUD_*` environment variables so that the same code runs under
`make dev`, in tests on free ports and in Kubernetes.

Settings are strict: a `PRINTCLOUD_*` variable that is not a field of the process's own settings
is refused, because pydantic would otherwise ignore it and a misspelt variable (a secret above
all) would silently leave the built-in value in force. Secrets have no default: a deployment
names them, and only the dev stack supplies development values.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
from collections.abc import Mapping
from typing import Any, Literal, Self

from pydantic import SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from printcloud.core.db.url import DatabaseUrl
from printcloud.core.kafka.cluster import KafkaCluster
from printcloud.core.rpc.service_auth import CallerCredential, TokenVerifier

ENV_PREFIX = "PRINTCLOUD_"
MIN_SECRET_LENGTH = 32


class CommonSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    service_name: str = "printcloud"
    instance_id: str = ""
    # A libpq URL (`core.db.url`): `?sslmode=verify-full&sslrootcert=/path/ca.crt` and the like.
    database_url: str = "postgresql://postgres@127.0.0.1:5432/printcloud"
    kafka_bootstrap_servers: str = "127.0.0.1:9092"
    # How often a process checks that the broker still has its log (`core.kafka.broker_epoch`).
    broker_check_seconds: float = 5.0
    log_level: str = "INFO"
    # Port of the per-process operations server: /metrics, /healthz, /readyz.
    ops_port: int = 0
    ops_host: str = "127.0.0.1"
    # "auto" exports traces and metrics over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces
    # endpoint) is set; "otlp" always does (default endpoint localhost:4318); "none" keeps spans
    # in-process (trace ids still reach logs and headers); "console" prints them.
    otel_exporter: Literal["auto", "otlp", "none", "console"] = "auto"

    jobs_grpc_target: str = "127.0.0.1:50051"
    devices_grpc_target: str = "127.0.0.1:50052"
    webhooks_grpc_target: str = "127.0.0.1:50053"

    # --- Kafka security and topics (`printcloud.core.kafka.cluster`) ---
    # PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
    kafka_security_protocol: str = "PLAINTEXT"
    # PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, with the SASL_* protocols.
    kafka_sasl_mechanism: str = ""
    kafka_sasl_username: str = ""
    kafka_sasl_password: SecretStr = SecretStr("")
    # CA bundle (PEM) for the brokers' certificates; empty: the system's trust store.
    kafka_ssl_cafile: str = ""
    # A client certificate (PEM) and its unencrypted key, for brokers that authenticate clients by TLS.
    kafka_ssl_certfile: str = ""
    kafka_ssl_keyfile: str = ""
    # Replicas of each topic the processes create (3 for a production cluster).
    kafka_topic_replication_factor: int = 1

    # --- Start-up ---
    # False when migrations run as a job of their own before the services roll out (Helm hook).
    migrate_on_start: bool = True

    def kafka_cluster(self) -> KafkaCluster:
        return KafkaCluster(
            bootstrap=self.kafka_bootstrap_servers,
            security_protocol=self.kafka_security_protocol,
            sasl_mechanism=self.kafka_sasl_mechanism,
            sasl_username=self.kafka_sasl_username,
            sasl_password=self.kafka_sasl_password.get_secret_value(),
            ssl_cafile=self.kafka_ssl_cafile,
            ssl_certfile=self.kafka_ssl_certfile,
            ssl_keyfile=self.kafka_ssl_keyfile,
            topic_replication_factor=self.kafka_topic_replication_factor,
        )

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        DatabaseUrl.parse(value)
        return value

    @model_validator(mode="after")
    def _kafka_cluster_is_usable(self) -> Self:
        # Refused at start-up, naming the setting, rather than at the first Kafka client; this
        # also reads the CA file, so a missing or malformed one stops the start.
        self.kafka_cluster().options()
        return self

    @classmethod
    def variable_names(cls) -> frozenset[str]:
        """Every environment variable these settings read."""
        return frozenset(ENV_PREFIX + name.upper() for name in cls.model_fields)

    @classmethod
    def required_variables(cls) -> frozenset[str]:
        """The variables with no default: the process does not start without them."""
        return frozenset(ENV_PREFIX + name.upper() for name, field in cls.model_fields.items() if field.is_required())

    @classmethod
    def unknown_variables(cls, environ: Mapping[str, str]) -> list[str]:
        known = cls.variable_names()
        return sorted(name for name in environ if name.upper().startswith(ENV_PREFIX) and name.upper() not in known)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_variables(cls, values: Any) -> Any:
        unknown = cls.unknown_variables(os.environ)
        if unknown:
            raise ValueError("; ".join(_unknown_message(name, cls.variable_names()) for name in unknown))
        return values

    @classmethod
    def load(cls) -> Self:
        """The settings from the environment, or a clear refusal to start naming each bad variable.

        Exits instead of raising so that a misconfigured container logs one readable line, not a
        traceback that buries the variable's name.
        """
        try:
            return cls()
        except ValidationError as error:
            raise SystemExit(f"refusing to start: {_describe(error)}") from None


def checked_secret(value: SecretStr) -> SecretStr:
    """For a field validator of a signing secret: long enough that guessing it is hopeless."""
    if len(value.get_secret_value()) < MIN_SECRET_LENGTH:
        raise ValueError(
            f"must have at least {MIN_SECRET_LENGTH} characters (for example the output of `openssl rand -base64 48`)"
        )
    return value


class InternalAuthSettings(CommonSettings):
    """Settings of the processes that serve or call gRPC (`core.rpc.service_auth`)."""

    # Signs and checks the service tokens every gRPC call carries; the same in every such process.
    internal_auth_secret: SecretStr

    _secret_length = field_validator("internal_auth_secret")(checked_secret)

    def caller(self, name: str) -> CallerCredential:
        return CallerCredential(name, self.internal_auth_secret.get_secret_value())

    def verifier(self) -> TokenVerifier:
        return TokenVerifier(self.internal_auth_secret.get_secret_value())


class EdgeSettings(CommonSettings):
    """Settings of the public HTTP servers (`core.http.edge_http`): how long a client may take."""

    edge_header_timeout_seconds: float = 10.0
    edge_body_idle_timeout_seconds: float = 15.0
    edge_body_grace_seconds: float = 10.0
    edge_body_min_bytes_per_second: int = 64 * 1024


class EgressSettings(CommonSettings):
    """Settings of the processes that make outbound HTTP requests (content URLs, webhooks)."""

    # Comma-separated CIDRs exempt from the private-address and port rules (`core.http.egress`).
    egress_allowlist: str = ""

    @field_validator("egress_allowlist")
    @classmethod
    def _networks(cls, value: str) -> str:
        for cidr in filter(None, (part.strip() for part in value.split(","))):
            try:
                ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                raise ValueError(f"{cidr!r} is not a network in CIDR form") from None
        return value


class SmtpSettings(CommonSettings):
    """The base of a service's Settings when it sends mail. Empty host: nothing can be sent."""

    smtp_host: str = ""
    smtp_port: int = 25
    smtp_username: str = ""
    smtp_password: SecretStr = SecretStr("")
    smtp_starttls: bool = False
    smtp_sender: str = "PrintCloud <no-reply@printcloud.invalid>"


def _unknown_message(name: str, known: frozenset[str]) -> str:
    guess = difflib.get_close_matches(name.upper(), known, n=1)
    hint = f" (did you mean {guess[0]}?)" if guess else ""
    return f"{name} is not a setting of this process{hint}"


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        field = ".".join(str(part) for part in item["loc"])
        if not field:
            problems.append(item["msg"].removeprefix("Value error, "))
        elif item["type"] == "missing":
            problems.append(f"{ENV_PREFIX}{field.upper()} must be set")
        else:
            problems.append(f"{ENV_PREFIX}{field.upper()}: {item['msg'].removeprefix('Value error, ')}")
    return "; ".join(problems)
