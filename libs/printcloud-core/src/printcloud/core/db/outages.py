"""Whether a failure came from the database being unreachable or busy (down, restarting, failing
over, a backend ended by its operator, a deadlock or serialization failure that PostgreSQL rolled
back) rather than from the work itself: a retry, later, can pass. A consumer retries the message;
a gRPC server answers 503 `service_unavailable`, which its callers and their clients retry."""

from __future__ import annotations

import asyncpg
import sqlalchemy.exc


def is_database_outage(error: BaseException) -> bool:
    """`error`, or an error it was raised from or while handling, is a database outage."""
    seen: BaseException | None = error
    while seen is not None:
        if is_outage_error(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def is_outage_error(error: BaseException) -> bool:
    """`error` itself, whatever it was raised from, is a database outage."""
    if isinstance(error, sqlalchemy.exc.DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(
        error,
        ConnectionError
        | TimeoutError
        | asyncpg.PostgresConnectionError
        | asyncpg.InterfaceError
        # A backend ended by an administrator, a crash or a timeout (a failover, a restart).
        | asyncpg.exceptions.OperatorInterventionError
        # A deadlock or a serialization failure: PostgreSQL rolled back, and a retry passes.
        | asyncpg.exceptions.TransactionRollbackError
        | sqlalchemy.exc.OperationalError
        | sqlalchemy.exc.InterfaceError,
    )
