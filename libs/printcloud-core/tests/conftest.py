"""Real PostgreSQL (the machine's, or embedded) and a real Kafka-compatible broker for core tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from printcloud.core.db.database import Database
from printcloud.core.db.migrations import migrate
from printcloud.core.kafka.broker_epoch import BrokerEpoch
from printcloud.devstack.infrastructure import (
    Broker,
    EmbeddedPostgres,
    external_postgres_url,
    start_broker,
    temporary_database,
)
from tests.support.spans import spans  # noqa: F401 - a fixture for the tests of this directory
from tests.support.tls_servers import certificates, tls_postgres  # noqa: F401 - fixtures, likewise


@pytest.fixture(scope="session")
def postgres_admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = external_postgres_url(prefer_local=True)
    if external:
        yield external
        return
    server = EmbeddedPostgres(Path(tmp_path_factory.mktemp("pg")) / "pgdata")
    yield server.url("postgres")
    server.stop()


@pytest.fixture
async def database_url(postgres_admin_url: str) -> AsyncIterator[str]:
    async with temporary_database("printcloud_core_test", postgres_admin_url) as url:
        yield url


@pytest.fixture
async def db(database_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Database]:
    """A fresh database with the core tables (outbox, processed messages) in the test module's `SCHEMA`."""
    await migrate(database_url, request.module.SCHEMA, "printcloud.core.kafka.sql")
    database = Database.connect(database_url)
    yield database
    await database.close()


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    running = start_broker(log_path=Path(tmp_path_factory.mktemp("broker")) / "broker.log")
    yield running
    running.stop()


@pytest.fixture
async def epoch(broker: Broker) -> AsyncIterator[BrokerEpoch]:
    """The broker's epoch, checked once (the topics exist) and not checked again during a test."""
    watch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=60)
    yield watch
    await watch.close()
