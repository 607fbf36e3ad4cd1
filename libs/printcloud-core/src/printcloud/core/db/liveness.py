"""Speed machinery: pooled connections checked without a round trip (docs/performance.md, "Speed machinery").

SQLAlchemy's `pool_pre_ping` pings on every checkout, and the asyncpg dialect's ping is three
round trips (BEGIN, an empty statement, ROLLBACK): more than the one statement most reads need.
Here a connection is checked as it leaves the pool by what costs nothing, whether its driver has
seen the socket close (a PostgreSQL restart or a terminated backend closes the server end, and the
running loop reads that end of stream at once), and pinged only when it sat unused long enough for
a quieter death (a firewall dropping the idle flow, a server gone without a word). A failed check
discards the pool's older connections too: a dead server end rarely dies alone.
"""

from __future__ import annotations

import time
from typing import Any

import asyncpg
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import InvalidatePoolError

# Unused this long, a connection is pinged before it is handed out.
IDLE_PING_SECONDS = 5.0
_RETURNED_AT = "printcloud_returned_at"


def check_on_checkout(engine: Engine, idle_ping_seconds: float = IDLE_PING_SECONDS) -> None:
    """Installs the check on the pool of `engine` (the sync engine under an AsyncEngine)."""

    @event.listens_for(engine.pool, "checkin")
    def _returned(dbapi_connection: Any, record: Any) -> None:
        # A record's `info` is emptied when its connection is replaced: a new one is not pinged.
        record.info[_RETURNED_AT] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def _taken(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        driver: asyncpg.Connection = dbapi_connection.driver_connection
        if driver.is_closed():
            raise InvalidatePoolError("the server closed the connection")
        returned = record.info.get(_RETURNED_AT)
        if returned is None or time.monotonic() - returned < idle_ping_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise InvalidatePoolError("the connection did not answer a ping") from error
