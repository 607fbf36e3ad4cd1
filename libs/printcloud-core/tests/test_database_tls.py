"""libpq's TLS parameters against a real PostgreSQL that refuses plain connections: each mode
means what it means in libpq, the pool and raw connections agree, and every refusal is told apart
from an outage with a reason an operator can act on."""

from __future__ import annotations

import logging
import ssl
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Select, func, literal_column, select, table, text

from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.connection_problems import first_database_problem
from printcloud.core.db.database import Database
from printcloud.core.db.migrations import migrate
from printcloud.core.db.url import connect
from printcloud.core.process.service_process import check_database
from printcloud.core.settings import CommonSettings
from printcloud.devstack.ports import free_port
from tests.support.tls_servers import CLIENT_CERTIFICATE_DATABASE, Certificates, TlsPostgres

SCHEMA = "tls_check"
ENCRYPTED: Select[Any] = (
    select(literal_column("ssl"))
    .select_from(table("pg_stat_ssl"))
    .where(literal_column("pid") == func.pg_backend_pid())
)


def _cases(c: Certificates, pg: TlsPostgres) -> dict[str, tuple[str, str | None]]:
    """Name: (URL, None when it connects, else a part of the reason)."""
    ca, wrong = str(c.ca), str(c.wrong_ca)
    client = {"sslcert": str(c.client_certificate), "sslkey": str(c.client_key)}
    return {
        "verify-full": (pg.url(sslmode="verify-full", sslrootcert=ca), None),
        "verify-full, wrong CA": (pg.url(sslmode="verify-full", sslrootcert=wrong), "certificate verify failed"),
        "verify-full, another host name": (
            pg.url(host="localhost", sslmode="verify-full", sslrootcert=ca),
            "certificate verify failed: Hostname mismatch",
        ),
        "verify-ca does not check the host name": (pg.url(host="localhost", sslmode="verify-ca", sslrootcert=ca), None),
        "require without a CA does not verify": (pg.url(sslmode="require"), None),
        "require with a CA verifies": (pg.url(sslmode="require", sslrootcert=wrong), "certificate verify failed"),
        "prefer": (pg.url(sslmode="prefer"), None),
        "allow": (pg.url(sslmode="allow"), None),
        "no sslmode is prefer": (pg.url(), None),
        "disable": (pg.url(sslmode="disable"), "pg_hba.conf rejects connection"),
        "system roots": (pg.url(sslrootcert="system"), "certificate verify failed"),
        "missing CA file": (
            pg.url(sslmode="verify-full", sslrootcert="/etc/printcloud/tls/postgresql/missing.crt"),
            "cannot read sslrootcert /etc/printcloud/tls/postgresql/missing.crt: No such file or directory",
        ),
        "no client certificate": (
            pg.url(CLIENT_CERTIFICATE_DATABASE, sslmode="verify-full", sslrootcert=ca),
            "connection requires a valid client certificate",
        ),
        "client certificate": (
            pg.url(CLIENT_CERTIFICATE_DATABASE, sslmode="verify-full", sslrootcert=ca, **client),
            None,
        ),
    }


async def test_each_sslmode_means_what_it_means_in_libpq(certificates: Certificates, tls_postgres: TlsPostgres) -> None:
    cases = _cases(certificates, tls_postgres)
    outcomes = {name: await first_database_problem(url) for name, (url, _) in cases.items()}
    for name, (_, refusal) in cases.items():
        problem = outcomes[name]
        if refusal is None:
            assert problem is None, (name, problem)
        else:
            assert problem is not None and refusal in problem.reason, (name, problem)
            assert problem.misconfigured, name


async def test_prefer_and_allow_encrypt_when_the_server_offers_it(tls_postgres: TlsPostgres) -> None:
    for mode in ("prefer", "allow"):
        connection = await connect(tls_postgres.url(sslmode=mode))
        try:
            assert await connection.fetchval("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") is True
        finally:
            await connection.close()


async def test_the_pool_compiled_reads_and_migrations_use_the_urls_tls_settings(
    certificates: Certificates, tls_postgres: TlsPostgres
) -> None:
    url = tls_postgres.url(sslmode="verify-full", sslrootcert=str(certificates.ca))
    assert await migrate(url, SCHEMA, "printcloud.core.kafka.sql")
    db = Database.connect(url, application_name="tls-check")
    try:
        async with db.read() as session:
            assert await session.scalar(text("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) is True
        assert [row.ssl for row in await db.fetch(CompiledRead.of(ENCRYPTED))] == [True]
    finally:
        await db.close()
    distrusting = Database.connect(tls_postgres.url(sslmode="verify-full", sslrootcert=str(certificates.wrong_ca)))
    try:
        with pytest.raises(ssl.SSLCertVerificationError):
            await distrusting.fetch(CompiledRead.of(ENCRYPTED))
    finally:
        await distrusting.close()


async def test_a_server_without_tls_is_refused_under_require(postgres_admin_url: str) -> None:
    # The machine's PostgreSQL (TESTING.md) has no TLS.
    problem = await first_database_problem(f"{postgres_admin_url}?sslmode=require")
    assert problem is not None and problem.misconfigured
    assert problem.reason == "the server does not accept TLS connections, which the URL's sslmode requires"


async def test_a_closed_port_or_a_missing_socket_is_an_outage_not_a_misconfiguration(
    certificates: Certificates, tmp_path: Path
) -> None:
    closed = await first_database_problem(
        f"postgresql://postgres@127.0.0.1:{free_port()}/db?sslmode=verify-full&sslrootcert={certificates.ca}"
    )
    assert closed is not None and not closed.misconfigured
    assert closed.reason.startswith("ConnectionRefusedError")
    # A server on a Unix socket that is down has no socket file.
    no_socket = await first_database_problem(f"postgresql://postgres@/db?host={tmp_path}")
    assert no_socket is not None and not no_socket.misconfigured, no_socket


def _settings(monkeypatch: pytest.MonkeyPatch, url: str) -> CommonSettings:
    monkeypatch.setenv("PRINTCLOUD_DATABASE_URL", url)
    return CommonSettings()


async def test_a_process_stops_on_settings_that_cannot_work_with_one_line(
    certificates: Certificates,
    tls_postgres: TlsPostgres,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = tls_postgres.url(sslmode="verify-full", sslrootcert=str(certificates.wrong_ca))
    settings = _settings(monkeypatch, url.replace("postgres@", "postgres:pw@"))
    with caplog.at_level(logging.INFO), pytest.raises(SystemExit) as stopped:
        await check_database(settings, must_answer=False)
    assert stopped.value.code == 1
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert record.__dict__["setting"] == "PRINTCLOUD_DATABASE_URL"
    assert record.__dict__["reason"].startswith("certificate verify failed")
    assert "pw" not in record.getMessage() and "postgres:***@" in record.getMessage()


async def test_a_database_that_does_not_answer_stops_only_a_process_that_migrates(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    settings = _settings(monkeypatch, f"postgresql://postgres@127.0.0.1:{free_port()}/db")
    with caplog.at_level(logging.INFO):
        await check_database(settings, must_answer=False)
        with pytest.raises(SystemExit):
            await check_database(settings, must_answer=True)
    assert [r.levelno for r in caplog.records] == [logging.WARNING, logging.ERROR]
    assert all(r.__dict__["reason"].startswith("ConnectionRefusedError") for r in caplog.records)
