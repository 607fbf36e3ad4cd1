"""The shared rate-limit store over TLS, against a real redis-server that speaks only TLS: a
`rediss://` URL with a CA works, settings that cannot work stop the start in one line, and a
misconfiguration met later is logged once, not per request."""

from __future__ import annotations

import logging
import uuid

import pytest

from printcloud.api_gateway.app import check_redis
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.persistence.redis_rate_limits import RedisWindow
from printcloud.api_gateway.persistence.redis_url import check_redis_url, first_redis_problem, redacted
from printcloud.devstack.ports import free_port
from tests.support.tls_servers import Certificates, TlsRedis


async def test_the_shared_window_works_over_tls_with_the_ca(certificates: Certificates, tls_redis: TlsRedis) -> None:
    window = RedisWindow.connect(tls_redis.url(ssl_ca_certs=str(certificates.ca)), 2, f"tls:{uuid.uuid4()}:", 2.0)
    try:
        decisions = [await window.hit("key:a") for _ in range(3)]
    finally:
        await window.close()
    assert [d.allowed for d in decisions] == [True, True, False]


async def test_a_client_certificate_can_be_given(certificates: Certificates, tls_redis: TlsRedis) -> None:
    url = tls_redis.url(
        ssl_ca_certs=str(certificates.ca),
        ssl_certfile=str(certificates.client_certificate),
        ssl_keyfile=str(certificates.client_key),
    )
    check_redis_url(url)
    assert await first_redis_problem(url) is None


async def test_tls_failures_are_misconfigurations_with_their_reason(
    certificates: Certificates, tls_redis: TlsRedis
) -> None:
    refusals = {
        tls_redis.url(ssl_ca_certs=str(certificates.wrong_ca)): "certificate verify failed",
        tls_redis.url(host="localhost", ssl_ca_certs=str(certificates.ca)): "Hostname mismatch",
        # Without a CA, the system's roots, which do not hold the test CA.
        tls_redis.url(): "certificate verify failed",
        tls_redis.url(ssl_ca_certs="/etc/printcloud/tls/redis/ca.crt"): "cannot read ssl_ca_certs",
    }
    for url, reason in refusals.items():
        problem = await first_redis_problem(url)
        assert problem is not None and problem.misconfigured and reason in problem.reason, (url, problem)
    assert await first_redis_problem(tls_redis.url(ssl_cert_reqs="none")) is None


async def test_a_plain_connection_to_a_tls_server_or_a_closed_port_is_an_outage(tls_redis: TlsRedis) -> None:
    plain = await first_redis_problem(tls_redis.url(scheme="redis"))
    assert plain is not None and not plain.misconfigured
    assert "if the server only accepts TLS, use rediss://" in plain.reason
    closed = await first_redis_problem(f"rediss://127.0.0.1:{free_port()}/0")
    assert closed is not None and not closed.misconfigured and closed.reason == "ConnectionRefusedError"


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("http://cache:6379", "must be a redis://, rediss:// \\(TLS\\) or unix:// URL"),
        ("rediss://cache:6379/0?ssl_ca_cert=/ca.crt", "unknown parameter ssl_ca_cert"),
        ("redis://cache:6379/0?ssl_ca_certs=/ca.crt", "ssl_ca_certs need a rediss:// URL"),
        ("rediss://cache:6379/0?ssl_cert_reqs=always", "ssl_cert_reqs must be one of none, optional, required"),
        ("rediss://cache:6379/0?ssl_check_hostname=maybe", "ssl_check_hostname must be true or false"),
    ],
)
def test_a_url_redis_py_would_stumble_on_is_refused(url: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=refusal):
        check_redis_url(url)


def test_passwords_are_hidden() -> None:
    assert redacted("rediss://:pw@cache:6380/0?ssl_password=kp&ssl_ca_certs=/ca.crt") == (
        "rediss://:***@cache:6380/0?ssl_password=***&ssl_ca_certs=/ca.crt"
    )
    assert redacted("rediss://app:pw@cache:6380/0") == "rediss://app:***@cache:6380/0"


async def test_the_start_stops_on_a_wrong_ca_and_goes_on_when_the_store_is_down(
    certificates: Certificates, tls_redis: TlsRedis, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO), pytest.raises(SystemExit) as stopped:
        await check_redis(tls_redis.url(ssl_ca_certs=str(certificates.wrong_ca)).replace("//", "//:pw@"))
    assert stopped.value.code == 1
    [refusal] = _ours(caplog)
    assert refusal.levelno == logging.ERROR and refusal.__dict__["setting"] == "PRINTCLOUD_REDIS_URL"
    assert "certificate verify failed" in refusal.getMessage() and "pw" not in refusal.getMessage()
    caplog.clear()
    with caplog.at_level(logging.INFO):
        await check_redis(f"rediss://127.0.0.1:{free_port()}/0")
    assert [r.levelno for r in _ours(caplog)] == [logging.WARNING]


def _ours(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The records of the gateway's own loggers: a consumer an earlier test left behind in this
    process may log its broker's absence meanwhile."""
    return [record for record in caplog.records if record.name.startswith("printcloud.")]


async def test_a_tls_failure_while_serving_is_logged_once_with_its_reason(
    certificates: Certificates, tls_redis: TlsRedis, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [0.0]
    shared = RedisWindow.connect(tls_redis.url(ssl_ca_certs=str(certificates.wrong_ca)), 5, "tls:", 2.0)
    limiter = RateLimiter(5, shared, clock=lambda: clock[0])
    try:
        with caplog.at_level(logging.INFO):
            for second in range(3):  # each second the limiter tries the store again, and fails again
                clock[0] = float(second * 2)
                decisions = [await limiter.hit("key:a") for _ in range(6)]
                assert [d.allowed for d in decisions] == [True] * 5 + [False]
    finally:
        await limiter.close()
    records = [r for r in caplog.records if r.name == "printcloud.api_gateway.persistence.rate_limiter"]
    assert len(records) == 1
    assert records[0].levelno == logging.ERROR
    assert records[0].__dict__["reason"].startswith("certificate verify failed")
