"""Kafka security settings reach every aiokafka client, and the topics job creates the topics."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import certifi
import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from printcloud.core.kafka.cluster import KafkaCluster
from printcloud.core.kafka.topics import ALL_TOPICS, BROKER_EPOCH
from printcloud.core.process import service_process
from printcloud.core.process.service_process import check_kafka
from printcloud.core.settings import CommonSettings
from printcloud.devstack.infrastructure import start_broker
from printcloud.devstack.ports import free_port
from tests.support.tls_servers import Certificates


async def test_settings_build_a_sasl_ssl_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "KAFKA_BOOTSTRAP_SERVERS": "b-1.example.net:9096",
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "KAFKA_SASL_USERNAME": "printcloud",
        "KAFKA_SASL_PASSWORD": "s3cret-password",
        "KAFKA_SSL_CAFILE": certifi.where(),
        "KAFKA_TOPIC_REPLICATION_FACTOR": "3",
    }.items():
        monkeypatch.setenv(f"PRINTCLOUD_{name}", value)
    cluster = CommonSettings().kafka_cluster()
    options = cluster.options()
    assert options["bootstrap_servers"] == "b-1.example.net:9096"
    assert options["security_protocol"] == "SASL_SSL"
    assert options["sasl_mechanism"] == "SCRAM-SHA-512"
    assert (options["sasl_plain_username"], options["sasl_plain_password"]) == ("printcloud", "s3cret-password")
    assert isinstance(options["ssl_context"], ssl.SSLContext)
    assert options["ssl_context"].verify_mode == ssl.CERT_REQUIRED
    assert cluster.topic_replication_factor == 3
    assert "s3cret" not in repr(cluster)
    # aiokafka accepts the whole set (it checks them when a client is made). Closed, or its
    # collection later logs "Unclosed AIOKafkaProducer" into whichever test is running then.
    await AIOKafkaProducer(**options).stop()


class _ClusterFields(TypedDict, total=False):
    security_protocol: str
    sasl_mechanism: str
    topic_replication_factor: int


def test_plaintext_takes_no_tls_or_sasl_options() -> None:
    assert KafkaCluster("k:9092").options() == {"bootstrap_servers": "k:9092", "security_protocol": "PLAINTEXT"}


@pytest.mark.parametrize(
    "cluster",
    [
        {"security_protocol": "TLS"},
        {"security_protocol": "SASL_SSL", "sasl_mechanism": "GSSAPI"},
        {"topic_replication_factor": 0},
    ],
)
def test_impossible_settings_are_refused(cluster: _ClusterFields) -> None:
    with pytest.raises(ValueError, match="Kafka"):
        KafkaCluster("k:9092", **cluster)


async def test_topics_command_creates_every_topic(tmp_path: Path) -> None:
    broker = start_broker(log_path=tmp_path / "broker.log")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PRINTCLOUD_")},
        "PRINTCLOUD_KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap,
        "PRINTCLOUD_KAFKA_TOPIC_REPLICATION_FACTOR": "1",
    }
    admin = AIOKafkaAdminClient(**KafkaCluster(broker.bootstrap).options())
    try:
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "printcloud.core.commands.create_topics"], env=env, timeout=60
        )
        assert done.returncode == 0
        await admin.start()
        assert {*ALL_TOPICS, BROKER_EPOCH} <= set(await admin.list_topics())
    finally:
        await admin.close()
        broker.stop()


def test_a_process_refuses_to_start_on_impossible_kafka_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRINTCLOUD_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("PRINTCLOUD_KAFKA_SASL_MECHANISM", "KERBEROS")
    with pytest.raises(SystemExit, match="refusing to start: Kafka SASL mechanism must be one of"):
        CommonSettings.load()


@contextlib.asynccontextmanager
async def _tls_listener(certificates: Certificates, *, client_certificates: bool) -> AsyncIterator[_Listener]:
    """A TLS server on loopback with the brokers' certificate (IP 127.0.0.1), which records the
    certificate each client presents and hangs up, as a broker with `ssl.client.auth=required`
    would when `client_certificates`."""
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(certificates.ca))
    server_side.load_cert_chain(certificates.server_certificate, certificates.server_key)
    if client_certificates:
        server_side.verify_mode = ssl.CERT_REQUIRED
    presented: list[object] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        presented.append(writer.get_extra_info("peercert"))
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_side)
    try:
        yield _Listener(server.sockets[0].getsockname()[1], presented)
    finally:
        server.close()
        await server.wait_closed()


@dataclass
class _Listener:
    port: int
    presented: list[object]


def _tls_cluster(bootstrap: str, ca: Path, certificate: str = "", key: str = "") -> KafkaCluster:
    return KafkaCluster(
        bootstrap, security_protocol="SSL", ssl_cafile=str(ca), ssl_certfile=certificate, ssl_keyfile=key
    )


async def test_a_client_certificate_is_presented_to_the_broker(certificates: Certificates) -> None:
    cluster = _tls_cluster(
        "127.0.0.1:9093",
        certificates.ca,
        str(certificates.client_certificate),
        str(certificates.client_key),
    )
    async with _tls_listener(certificates, client_certificates=True) as listener:
        _, writer = await asyncio.open_connection("127.0.0.1", listener.port, ssl=cluster.options()["ssl_context"])
        await asyncio.wait_for(writer.wait_closed(), 5)
    [certificate] = listener.presented
    assert isinstance(certificate, dict)
    assert (("commonName", "postgres"),) in certificate["subject"]


async def test_a_refused_broker_certificate_is_told_from_an_unreachable_broker(certificates: Certificates) -> None:
    closed = f"127.0.0.1:{free_port()}"
    async with _tls_listener(certificates, client_certificates=False) as listener:
        good = f"127.0.0.1:{listener.port}"
        assert await _tls_cluster(f"{closed},{good}", certificates.ca).tls_problem() is None
        wrong = await _tls_cluster(good, certificates.wrong_ca).tls_problem()
        assert wrong is not None and wrong.misconfigured and wrong.reason.startswith("certificate verify failed")
        other_name = await _tls_cluster(f"localhost:{listener.port}", certificates.ca).tls_problem()
        assert other_name is not None and other_name.misconfigured and "Hostname mismatch" in other_name.reason
    down = await _tls_cluster(closed, certificates.ca).tls_problem()
    assert down is not None and not down.misconfigured
    assert await KafkaCluster(closed).tls_problem() is None  # plaintext: nothing to shake hands over


async def test_a_process_stops_with_one_line_when_the_broker_certificate_is_refused(
    certificates: Certificates, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with _tls_listener(certificates, client_certificates=False) as listener:
        monkeypatch.setenv("PRINTCLOUD_KAFKA_BOOTSTRAP_SERVERS", f"127.0.0.1:{listener.port}")
        monkeypatch.setenv("PRINTCLOUD_KAFKA_SECURITY_PROTOCOL", "SSL")
        monkeypatch.setenv("PRINTCLOUD_KAFKA_SSL_CAFILE", str(certificates.wrong_ca))
        with caplog.at_level(logging.INFO), pytest.raises(SystemExit):
            await check_kafka(CommonSettings())
    [record] = [r for r in caplog.records if r.name == service_process.__name__]
    assert record.levelno == logging.ERROR
    assert record.__dict__["setting"] == "PRINTCLOUD_KAFKA_SSL_CAFILE"
    assert record.__dict__["reason"].startswith("certificate verify failed")


@pytest.mark.parametrize(
    ("files", "refusal"),
    [
        (
            {"ssl_cafile": "/etc/printcloud/tls/kafka/ca.crt"},
            "PRINTCLOUD_KAFKA_SSL_CAFILE /etc/printcloud/tls/kafka/ca.crt: No such file",
        ),
        ({"ssl_cafile": "client_key"}, "PRINTCLOUD_KAFKA_SSL_CAFILE .*: no usable PEM certificate"),
        (
            {"ssl_certfile": "client_certificate", "ssl_keyfile": "server_key"},
            "not a certificate and its unencrypted key",
        ),
        ({"ssl_certfile": "client_certificate", "ssl_keyfile": "encrypted_key"}, r"\(the key is encrypted\)"),
        ({"ssl_keyfile": "client_key"}, "PRINTCLOUD_KAFKA_SSL_KEYFILE given without PRINTCLOUD_KAFKA_SSL_CERTFILE"),
    ],
)
def test_an_unusable_tls_file_is_refused_naming_its_setting(
    certificates: Certificates, tmp_path: Path, files: dict[str, str], refusal: str
) -> None:
    encrypted = tmp_path / "encrypted.key"
    subprocess.run(["openssl", "pkey", "-in", str(certificates.client_key), "-aes256", "-passout", "pass:pw",
                    "-out", str(encrypted)], check=True, capture_output=True)  # fmt: skip
    paths = {**{name: str(getattr(certificates, name)) for name in ("client_key", "client_certificate", "server_key")},
             "encrypted_key": str(encrypted)}  # fmt: skip
    chosen = {setting: paths.get(value, value) for setting, value in files.items()}
    with pytest.raises(ValueError, match=refusal):
        KafkaCluster(
            "k:9093",
            security_protocol="SASL_SSL",
            sasl_mechanism="PLAIN",
            ssl_cafile=chosen.get("ssl_cafile", ""),
            ssl_certfile=chosen.get("ssl_certfile", ""),
            ssl_keyfile=chosen.get("ssl_keyfile", ""),
        ).options()


def test_tls_files_with_a_plaintext_protocol_are_refused(certificates: Certificates) -> None:
    with pytest.raises(
        ValueError, match=r"PRINTCLOUD_KAFKA_SSL_CAFILE given, but .* is SASL_PLAINTEXT: set SSL or SASL_SSL"
    ):
        KafkaCluster(
            "k:9093", security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN", ssl_cafile=str(certificates.ca)
        )


def test_a_missing_ca_file_stops_the_start_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRINTCLOUD_KAFKA_SECURITY_PROTOCOL", "SSL")
    monkeypatch.setenv("PRINTCLOUD_KAFKA_SSL_CAFILE", "/etc/printcloud/tls/kafka/ca.crt")
    with pytest.raises(SystemExit) as refused:
        CommonSettings.load()
    assert str(refused.value) == (
        "refusing to start: PRINTCLOUD_KAFKA_SSL_CAFILE /etc/printcloud/tls/kafka/ca.crt: No such file or directory"
    )
