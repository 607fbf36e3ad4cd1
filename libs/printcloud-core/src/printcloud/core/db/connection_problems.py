"""Why a connection to a backing store failed, in one line an operator can act on, and whether
waiting can help.

A store that is down or restarting comes back; a wrong CA, a certificate for another host name, a
server that refuses plain connections or a missing certificate file do not, and a process that
retried them would hide its operator's mistake behind warnings for ever. Reasons never carry a
password: they come from TLS verification, file names and the server's own refusal messages.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import asyncpg

from printcloud.core.db.url import DatabaseUrl

# SQLSTATEs of a refused connection that no wait will cure (besides class 28, "invalid
# authorization": pg_hba.conf's refusal, a wrong password): no such database, a parameter of the
# URL the server does not know or refuses.
_MISCONFIGURED_STATES = frozenset({"3D000", "42704", "55P02", "22023"})
# TLS failures of a connection cut short (the server stopping mid-handshake), not of settings.
_INTERRUPTED = (ssl.SSLEOFError, ssl.SSLZeroReturnError)


@dataclass(frozen=True)
class ConnectionProblem:
    reason: str
    # The settings are wrong: retrying cannot help, and the operator must be told.
    misconfigured: bool

    def sentence(self, store: str, setting: str, url: str) -> str:
        """The problem in one line, naming the setting; `url` must have its passwords hidden."""
        return f"cannot connect to the {store} of {setting}={url}: {self.reason}"


def causes(error: BaseException) -> Iterator[BaseException]:
    """`error` and the errors it was raised from or while handling, innermost last."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def tls_problem(error: BaseException) -> ConnectionProblem | None:
    """The TLS failure behind `error`, if that is what it is. (A certificate file that cannot be
    read is found by `unreadable_file` first: a missing file is also how a Unix socket of a server
    that is down looks.)"""
    for cause in causes(error):
        if isinstance(cause, ssl.SSLCertVerificationError):
            return ConnectionProblem(f"certificate verify failed: {cause.verify_message}", misconfigured=True)
        if isinstance(cause, ssl.SSLError) and not isinstance(cause, _INTERRUPTED):
            return ConnectionProblem(f"TLS handshake failed: {cause.reason or cause}", misconfigured=True)
    return None


def unreadable_file(files: Mapping[str, str]) -> ConnectionProblem | None:
    """The first of `files` (path by the setting that names it) this process cannot read: checked
    before connecting, since the TLS libraries' own errors do not name the file."""
    for name, path in files.items():
        try:
            with open(path, "rb"):
                pass
        except OSError as error:
            return ConnectionProblem(f"cannot read {name} {path}: {error.strerror}", misconfigured=True)
    return None


def database_problem(error: BaseException) -> ConnectionProblem:
    """What a failed PostgreSQL connection attempt says about the settings, or about the server."""
    if isinstance(error, asyncpg.PostgresError):
        state = error.sqlstate or ""
        misconfigured = state.startswith("28") or state in _MISCONFIGURED_STATES
        return ConnectionProblem(f"the server refused the connection: {error}", misconfigured)
    if isinstance(error, asyncpg.ClientConfigurationError):
        # Its hint comes on a line of its own; the reason is one line.
        return ConnectionProblem(" ".join(str(error).split()), misconfigured=True)
    # asyncpg's only sign that the server answered "no TLS here" to sslmode=require or stricter.
    if type(error) is ConnectionError and "rejected SSL upgrade" in str(error):
        return ConnectionProblem(
            "the server does not accept TLS connections, which the URL's sslmode requires", misconfigured=True
        )
    return tls_problem(error) or ConnectionProblem(_outage(error), misconfigured=False)


async def first_database_problem(database_url: str) -> ConnectionProblem | None:
    """Why one connection to the database fails now, or None when it succeeds."""
    target = DatabaseUrl.parse(database_url)
    if problem := unreadable_file(target.files()):
        return problem
    try:
        connection = await target.connect()
    except Exception as error:  # noqa: BLE001 - every failure is described, none raised
        return database_problem(error)
    await connection.close()
    return None


def _outage(error: BaseException) -> str:
    return f"{type(error).__name__}: {error or 'no answer'}"
