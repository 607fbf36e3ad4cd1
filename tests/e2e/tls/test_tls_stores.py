"""The whole system on a PostgreSQL that refuses plain connections, with `sslmode=verify-full` and
a mounted CA, and on a TLS-only Redis; and what a deployment with one TLS setting wrong is told."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx
import pytest
import redis

from printcloud.core.db.url import connect
from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, eventually
from tests.e2e.tenants import office_tenant
from tests.e2e.tls.conftest import PASSWORD, Ended, TlsStores

pytestmark = pytest.mark.e2e

DATABASE_SERVICES = {"api-gateway", "jobs", "devices", "webhooks"}


def test_an_organization_made_over_verify_full_prints_a_test_job(tls_stack: Stack) -> None:
    assert "sslmode=verify-full" in tls_stack.database_url and "sslrootcert=" in tls_stack.database_url
    # Made with the CLI, on the stack's URL; its printer online through the virtual fleet.
    tenant = office_tenant(tls_stack, "Managed", "owner@managed-postgres.test")
    with api(tls_stack.api_url, tenant.key) as client:
        job = {"printerId": tenant.printer_id, "title": "Over TLS", "contentType": "pdf_base64", "content": PDF_BASE64}
        created = client.post("/v1/printjobs", json=job)
        assert created.status_code == 201, created.text
        job_id = created.json()["id"]

        def ended() -> dict[str, Any] | None:
            job: dict[str, Any] = client.get(f"/v1/printjobs/{job_id}").json()
            return job if job["state"] in ("done", "error", "cancelled", "expired") else None

        assert eventually(ended, timeout=30, what="the job to end")["state"] == "done"


async def test_every_connection_of_every_service_is_encrypted(tls_stack: Stack) -> None:
    connection = await connect(tls_stack.database_url)
    try:
        rows = await connection.fetch(
            "SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) "
            "WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()"
        )
    finally:
        await connection.close()
    assert rows and all(row["ssl"] for row in rows)
    # The pools, by the name each service gives its connections; the LISTEN and lock connections
    # have none.
    assert {row["application_name"] for row in rows} >= DATABASE_SERVICES


def test_the_shared_rate_limit_is_decided_by_the_tls_redis(tls_stack: Stack, stores: TlsStores) -> None:
    store = redis.Redis.from_url(stores.redis.url(ssl_ca_certs=str(stores.certificates.ca)))
    prefix = tls_stack.config.env["PRINTCLOUD_RATE_LIMIT_KEY_PREFIX"]
    with api(tls_stack.api_url, None) as anonymous, contextlib.closing(store):

        def charged_in_the_store() -> list[bytes]:
            # The gateway charges an anonymous request to its address; the entry lives one second.
            assert anonymous.get("/v1/printers").status_code == 401
            return list(store.scan_iter(match=f"{prefix}ip:*"))

        eventually(charged_in_the_store, what="the request charged in the TLS Redis")
    metrics = httpx.get(f"{tls_stack.ops_url('api-gateway')}/metrics").text
    assert 'printcloud_rate_limit_store_up{store="redis"} 1.0' in metrics


def test_no_password_reaches_the_logs(tls_stack: Stack, refusals: dict[str, Ended]) -> None:
    assert PASSWORD in tls_stack.database_url
    logged = tls_stack.config.data_dir / "services.log"
    assert PASSWORD not in logged.read_text()
    for ended in refusals.values():
        assert PASSWORD not in ended.stdout + ended.stderr


def _one_json_line(ended: Ended) -> dict[str, Any]:
    assert ended.code != 0
    assert "Traceback" not in ended.stdout + ended.stderr
    errors = [json.loads(line) for line in ended.lines if json.loads(line)["level"] == "error"]
    assert len(errors) == 1, ended.lines
    record: dict[str, Any] = errors[0]
    return record


@pytest.mark.parametrize(
    ("run", "reason"),
    [("service, wrong CA", "certificate verify failed"), ("service, sslmode=disable", "no encryption")],
)
def test_a_service_stops_with_one_line_naming_the_database_setting(
    refusals: dict[str, Ended], run: str, reason: str
) -> None:
    ended = refusals[run]
    assert ended.code == 1
    # Nothing else happened before but the line naming the release that starts: the database is the
    # first thing a service connects to.
    assert [json.loads(line)["level"] for line in ended.lines] == ["info", "error"], ended.lines
    record = _one_json_line(ended)
    assert record["setting"] == "PRINTCLOUD_DATABASE_URL"
    assert reason in record["reason"]
    assert record["url"].startswith("postgresql://postgres:***@127.0.0.1:")
    assert f"PRINTCLOUD_DATABASE_URL={record['url']}: {record['reason']}" in record["msg"]


@pytest.mark.parametrize(
    ("run", "reason"),
    [("CLI, wrong CA", "certificate verify failed"), ("CLI, sslmode=disable", "no encryption")],
)
def test_the_cli_stops_with_one_line_on_stderr(refusals: dict[str, Ended], run: str, reason: str) -> None:
    ended = refusals[run]
    assert ended.code == 2
    assert ended.stdout == ""
    [line] = ended.stderr.splitlines()
    assert line.startswith("printcloud: cannot connect to the database of PRINTCLOUD_DATABASE_URL=postgresql://")
    assert reason in line


def test_the_gateway_stops_with_one_line_on_a_wrong_redis_ca(refusals: dict[str, Ended]) -> None:
    ended = refusals["gateway, wrong Redis CA"]
    assert ended.code == 1
    record = _one_json_line(ended)
    assert record["setting"] == "PRINTCLOUD_REDIS_URL"
    assert record["reason"].startswith("certificate verify failed")
