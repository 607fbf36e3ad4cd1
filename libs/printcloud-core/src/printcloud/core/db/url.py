"""`PRINTCLOUD_DATABASE_URL` read once, in one place, into connections.

Operators write libpq URLs: `postgresql://user:password@host:port/database?sslmode=verify-full&
sslrootcert=/etc/printcloud/tls/postgresql/ca.crt`, as a managed PostgreSQL's documentation shows
them. asyncpg reads libpq's parameters (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`,
`sslpassword`, `sslcrl`, ...) from a URL handed to it whole, with libpq's meanings: `require`
encrypts without checking the certificate unless a root certificate is given, `verify-ca` checks
the chain but not the host name, `verify-full` both, and `prefer` (the default) and `allow` fall back
to a plain connection. SQLAlchemy's asyncpg dialect instead turns each query parameter into a
keyword argument of `asyncpg.connect()`, which refuses `sslmode`. So every connection, pooled
(`core.db.database`) or raw (migrations, LISTEN connections, the outbox relay's lock, the dev stack), is made
by `DatabaseUrl.connect`, from the URL as the operator wrote it.

What the URL form cannot say to asyncpg is translated here: `sslrootcert=system` (libpq 16: the
system's trusted roots, with `verify-full`), `connect_timeout` (libpq's seconds) and SQLAlchemy's
`ssl=` spelling of `sslmode`. Certificate files are read again by every new connection, so a
rotated CA or client certificate mounted from a Secret takes effect without a restart.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

import asyncpg

SETTING = "PRINTCLOUD_DATABASE_URL"
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
SCHEMES = ("postgresql", "postgres", "postgresql+asyncpg")
# The certificate and key files a URL may name, by parameter.
FILE_PARAMETERS = ("sslrootcert", "sslcert", "sslkey", "sslcrl")
# Every libpq TLS parameter asyncpg reads; another `ssl…` name is a misspelling, which asyncpg
# would send to the server as a setting and the server refuse with a puzzling message.
SSL_PARAMETERS = frozenset(
    {
        "sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword", "sslcrl", "sslnegotiation",
        "ssl_min_protocol_version", "ssl_max_protocol_version",
    }
)  # fmt: skip
SECRET_PARAMETERS = ("password", "sslpassword")
SYSTEM_ROOTS = "system"
HIDDEN = "***"


@dataclass(frozen=True)
class DatabaseUrl:
    """A checked database URL: `text` as written, `dsn` with libpq's parameters for asyncpg, and
    what asyncpg takes as arguments instead (`system_roots`, `timeout`)."""

    text: str
    dsn: str
    database: str
    system_roots: bool = False
    timeout: float | None = None

    @classmethod
    def parse(cls, text: str) -> DatabaseUrl:
        """The URL, or a ValueError saying what is wrong with it (never echoing a password)."""
        text = text.strip()
        parts = urlsplit(text)
        if parts.scheme not in SCHEMES:
            raise ValueError(
                f"must be a PostgreSQL URL, postgresql://user:password@host:port/database (not {parts.scheme or '?'}://)"
            )
        parameters: dict[str, str] = {}
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            if name in parameters:
                raise ValueError(f"names the parameter {name} twice")
            parameters[name] = value
        _translate_ssl_alias(parameters)
        _check_ssl_parameters(parameters)
        timeout = _timeout(parameters.pop("connect_timeout", None))
        system_roots = parameters.get("sslrootcert") == SYSTEM_ROOTS
        if system_roots:
            # libpq's meaning: the system's roots, and a mode weaker than verify-full is an error.
            if parameters.setdefault("sslmode", "verify-full") != "verify-full":
                raise ValueError("sslrootcert=system needs sslmode=verify-full (or no sslmode)")
            del parameters["sslrootcert"]
        database = unquote(parts.path.removeprefix("/")) or parameters.get("dbname", "")
        dsn = urlunsplit(("postgresql", parts.netloc, parts.path, _query(parameters), ""))
        return cls(text, dsn, database, system_roots, timeout)

    @property
    def parameters(self) -> dict[str, str]:
        """libpq's parameters as asyncpg gets them."""
        return dict(parse_qsl(urlsplit(self.dsn).query, keep_blank_values=True))

    def files(self) -> dict[str, str]:
        """The certificate and key files the URL names, by parameter."""
        return {name: path for name, path in self.parameters.items() if name in FILE_PARAMETERS and path}

    def redacted(self) -> str:
        """The URL for a log line or an error: passwords, in the user part or the query, hidden."""
        parts = urlsplit(self.text)
        user, at, host = parts.netloc.rpartition("@")
        name, colon, password = user.partition(":")
        if password:
            user = f"{name}{colon}{HIDDEN}"
        shown = parse_qsl(parts.query, keep_blank_values=True)
        query = urlencode([(n, HIDDEN if n in SECRET_PARAMETERS else v) for n, v in shown], quote_via=quote, safe="/*")
        return urlunsplit((parts.scheme, f"{user}{at}{host}", parts.path, query, ""))

    def with_database(self, name: str) -> DatabaseUrl:
        """The same server, user and TLS settings, for another database on it."""
        parts = urlsplit(self.text)
        parameters = [(n, v) for n, v in parse_qsl(parts.query, keep_blank_values=True) if n != "dbname"]
        return DatabaseUrl.parse(urlunsplit(parts._replace(path="/" + quote(name), query=_query(parameters))))

    async def connect(self, **options: Any) -> asyncpg.Connection:
        """A new connection; `options` are asyncpg's (`server_settings`, `timeout`, ...)."""
        if self.timeout is not None:
            options.setdefault("timeout", self.timeout)
        if self.system_roots:
            options["ssl"] = self._system_roots_context()
        return await asyncpg.connect(self.dsn, **options)

    def _system_roots_context(self) -> ssl.SSLContext:
        # Given a context, asyncpg reads no other TLS parameter: the client certificate is loaded here.
        context = ssl.create_default_context()
        parameters = self.parameters
        if certificate := parameters.get("sslcert"):
            password = parameters.get("sslpassword")
            context.load_cert_chain(certificate, parameters.get("sslkey") or None, password=password or None)
        return context


async def connect(database_url: str, **options: Any) -> asyncpg.Connection:
    """A raw connection to the database of `database_url` (see `DatabaseUrl.connect`)."""
    return await DatabaseUrl.parse(database_url).connect(**options)


def _translate_ssl_alias(parameters: dict[str, str]) -> None:
    """SQLAlchemy's documentation spells the mode `ssl=require`; asyncpg would send `ssl` to the
    server as a setting, which refuses it ("parameter "ssl" cannot be changed now")."""
    if "ssl" not in parameters:
        return
    mode = parameters.pop("ssl")
    if parameters.setdefault("sslmode", mode) != mode:
        raise ValueError("names both ssl and sslmode, with different values: keep sslmode")


def _check_ssl_parameters(parameters: dict[str, str]) -> None:
    for name, value in parameters.items():
        if name.startswith("ssl") and name not in SSL_PARAMETERS:
            raise ValueError(f"has an unknown TLS parameter {name} (libpq's are {', '.join(sorted(SSL_PARAMETERS))})")
        if name in SSL_PARAMETERS and name not in SECRET_PARAMETERS and not value:
            raise ValueError(f"names the parameter {name} with no value")
    mode = parameters.get("sslmode")
    if mode is not None and mode not in SSL_MODES:
        raise ValueError(f"sslmode must be one of {', '.join(SSL_MODES)}, not {mode!r}")


def _query(parameters: dict[str, str] | list[tuple[str, str]]) -> str:
    # Paths stay readable; asyncpg decodes the rest.
    return urlencode(parameters, quote_via=quote, safe="/")


def _timeout(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"connect_timeout must be a number of seconds, not {value!r}") from None
    # libpq: zero, or no value, means wait indefinitely; asyncpg's own default (60 s) is kept then.
    return seconds if seconds > 0 else None
