"""Kafka security settings reach every aiokafka client, and the topics job creates the topics."""

from __future__ import annotations

import asyncio
import os
import ssl
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

import certifi
import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from printcloud.core.kafka_cluster import KafkaCluster
from printcloud.core.settings import CommonSettings
from printcloud.core.topics import ALL_TOPICS, BROKER_EPOCH
from printcloud.devstack.infrastructure import start_broker


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
    # aiokafka accepts the whole set (it checks them when a client is made).
    AIOKafkaProducer(**options)


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
            subprocess.run, [sys.executable, "-m", "printcloud.core.create_topics"], env=env, timeout=60
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
