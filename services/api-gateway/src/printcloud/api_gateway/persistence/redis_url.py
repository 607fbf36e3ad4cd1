"""`PRINTCLOUD_REDIS_URL`, checked before the limiter uses it, and what a failed connection to it means.

redis-py reads `redis://`, `rediss://` (TLS) and `unix://` URLs and hands every query parameter to
its connection class as a keyword argument; one it does not know (a misspelt `ssl_ca_cert`) fails
with a TypeError at the first request, and a TLS parameter on a `redis://` URL does too. So the
parameters are checked here, at start-up: `rediss://` takes `ssl_ca_certs` (a CA bundle; without it
the system's roots), `ssl_certfile`/`ssl_keyfile` (a client certificate), `ssl_cert_reqs`
(`required`, the default; `none` turns verification off) and `ssl_check_hostname`.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError, AuthenticationWrongNumberOfArgsError, ResponseError

from printcloud.core.db.connection_problems import ConnectionProblem, causes, tls_problem, unreadable_file

SETTING = "PRINTCLOUD_REDIS_URL"
SCHEMES = ("redis", "rediss", "unix")
TLS_PARAMETERS = frozenset(
    {
        "ssl_ca_certs", "ssl_ca_path", "ssl_certfile", "ssl_keyfile", "ssl_password", "ssl_cert_reqs",
        "ssl_check_hostname",
    }
)  # fmt: skip
PARAMETERS = TLS_PARAMETERS | {"db", "client_name", "protocol", "health_check_interval", "socket_keepalive"}
FILE_PARAMETERS = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile")
CERT_REQS = ("none", "optional", "required")
BOOLEANS = ("true", "false", "yes", "no", "1", "0")
HIDDEN = "***"
# How long the start-up check waits for the connection and the TLS handshake: longer than a
# request may wait, so that a slow handshake is not taken for an outage.
CHECK_TIMEOUT_SECONDS = 5.0


def check_redis_url(url: str) -> None:
    """Raises a ValueError saying what redis-py would stumble on, never echoing a password."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"must be a redis://, rediss:// (TLS) or unix:// URL, not {parts.scheme or '?'}://")
    parameters = dict(parse_qsl(parts.query, keep_blank_values=True))
    for name in parameters:
        if name not in PARAMETERS:
            raise ValueError(f"has an unknown parameter {name} (known: {', '.join(sorted(PARAMETERS))})")
    tls = sorted(TLS_PARAMETERS & parameters.keys())
    if tls and parts.scheme != "rediss":
        raise ValueError(f"{', '.join(tls)} need a rediss:// URL (TLS), not {parts.scheme}://")
    if parameters.get("ssl_cert_reqs", "required") not in CERT_REQS:
        raise ValueError(f"ssl_cert_reqs must be one of {', '.join(CERT_REQS)}")
    if parameters.get("ssl_check_hostname", "true").lower() not in BOOLEANS:
        raise ValueError("ssl_check_hostname must be true or false")


def redacted(url: str) -> str:
    parts = urlsplit(url)
    user, at, host = parts.netloc.rpartition("@")
    if user:
        user = f"{user.partition(':')[0]}:{HIDDEN}" if ":" in user else HIDDEN
    shown = [(n, HIDDEN if n == "ssl_password" else v) for n, v in parse_qsl(parts.query, keep_blank_values=True)]
    return urlunsplit((parts.scheme, f"{user}{at}{host}", parts.path, urlencode(shown, quote_via=quote, safe="/*"), ""))


def redis_problem(error: BaseException) -> ConnectionProblem:
    """What a failed command says about the settings, or about the store."""
    if problem := tls_problem(error):
        return problem
    for cause in causes(error):
        refused_login = isinstance(cause, ResponseError) and str(cause).startswith(("NOAUTH", "WRONGPASS"))
        if isinstance(cause, AuthenticationError | AuthenticationWrongNumberOfArgsError) or refused_login:
            return ConnectionProblem("the server refused the user or password", misconfigured=True)
    # The innermost error's type only (a timeout's, not the cancellation it began with): redis-py's
    # texts can carry the address and the user.
    innermost = [cause for cause in causes(error) if not isinstance(cause, asyncio.CancelledError)][-1]
    return ConnectionProblem(type(innermost).__name__, misconfigured=False)


async def first_redis_problem(url: str) -> ConnectionProblem | None:
    """Why one command to the store fails now, or None when it answers."""
    parameters = dict(parse_qsl(urlsplit(url).query))
    if problem := unreadable_file({name: parameters[name] for name in FILE_PARAMETERS if parameters.get(name)}):
        return problem
    redis = Redis.from_url(
        url,
        socket_timeout=CHECK_TIMEOUT_SECONDS,
        socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 0),
    )
    try:
        await redis.ping()
    except Exception as error:  # noqa: BLE001 - every failure is described, none raised
        problem = redis_problem(error)
        if problem.reason == "ConnectionResetError" and urlsplit(url).scheme == "redis":
            # What a server that only speaks TLS does to a plain connection.
            return ConnectionProblem(f"{problem.reason}; if the server only accepts TLS, use rediss://", False)
        return problem
    finally:
        await redis.aclose()
    return None
