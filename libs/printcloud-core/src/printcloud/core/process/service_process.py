"""The start-up every database-backed service shares, in one place.

`ServiceProcess.start` does what each of them needs first: telemetry, the database and a readiness
check on it, the ops server (so liveness answers during a slow start), a first connection to the
database (`check_database`), migrations and the broker's epoch. The methods add the parts some of
them have: an outbox relay, a Kafka consumer with its ledger purge, a gRPC server.
`run_until_stopped` marks the process ready and runs it all.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import grpc

from printcloud.core import rpc
from printcloud.core.db.connection_problems import first_database_problem
from printcloud.core.db.database import Database
from printcloud.core.db.url import SETTING, DatabaseUrl
from printcloud.core.kafka.broker_epoch import BrokerEpoch
from printcloud.core.kafka.bus import BatchHandler, Consumer, Handler, Producer
from printcloud.core.kafka.dead_letters import DeadLetters
from printcloud.core.kafka.dead_letters_command import run_dead_letters_command
from printcloud.core.kafka.outbox import Outbox, OutboxRelay
from printcloud.core.kafka.processed_messages import ProcessedMessages
from printcloud.core.process.bare_process import Parts
from printcloud.core.process.lifecycle import run_in_process_loop, run_until_stopped, setup_process
from printcloud.core.settings import CommonSettings, InternalAuthSettings
from printcloud.core.telemetry.ops import Readiness, serve_ops

log = logging.getLogger(__name__)

GRPC_STOP_GRACE_SECONDS = 5.0

Servicer = TypeVar("Servicer")
Result = TypeVar("Result")
KAFKA_TLS_SETTING = "PRINTCLOUD_KAFKA_SSL_CAFILE"


async def check_database(settings: CommonSettings, *, must_answer: bool) -> None:
    """Connects once, before anything else uses the database.

    Settings that cannot work (a wrong CA, a certificate for another host, TLS the server does not
    offer or a plain connection it refuses, a missing certificate file, a wrong password) stop the
    process with one line naming the setting and the reason: retrying would never succeed, and
    the orchestrator shows the process failing instead of a service that is never ready. A
    database that does not answer stops a process that `must_answer` (one that migrates now), as
    it always has, for its supervisor to start it again; any other waits, not ready (/readyz),
    while each part retries on its own."""
    problem = await first_database_problem(settings.database_url)
    if problem is None:
        return
    url = DatabaseUrl.parse(settings.database_url).redacted()
    details = {"setting": SETTING, "url": url, "reason": problem.reason}
    if problem.misconfigured:
        log.error(problem.sentence("database", SETTING, url), extra=details)
        raise SystemExit(1)
    if must_answer:
        log.error(f"the database of {SETTING}={url} does not answer; stopping: {problem.reason}", extra=details)
        raise SystemExit(1)
    log.warning(f"the database of {SETTING}={url} does not answer yet; not ready until it does", extra=details)


async def check_kafka(settings: CommonSettings) -> None:
    """Shakes hands with the brokers before any Kafka client starts: a certificate refused (a wrong
    PRINTCLOUD_KAFKA_SSL_CAFILE, a broker name it was not issued for) stops the process with one
    line saying so. Brokers that do not answer are waited for by the broker check, as before."""
    problem = await settings.kafka_cluster().tls_problem()
    if problem is not None and problem.misconfigured:
        servers = settings.kafka_bootstrap_servers
        details = {"setting": KAFKA_TLS_SETTING, "bootstrap_servers": servers, "reason": problem.reason}
        log.error(f"cannot connect to the Kafka brokers {servers} over TLS: {problem.reason}", extra=details)
        raise SystemExit(1)


class ServiceProcess(Parts):
    def __init__(self, settings: CommonSettings, db: Database, readiness: Readiness, epoch: BrokerEpoch) -> None:
        super().__init__(settings, readiness)
        self.db = db
        # The epoch's watch is made when the process runs: one that stops before (a setting refused
        # after the start) leaves no coroutine never awaited.
        self.epoch = epoch
        self.on_stop(db.close)
        self.on_stop(epoch.close)

    @classmethod
    async def start(cls, settings: CommonSettings, migrate_schema: Callable[[str], Awaitable[None]]) -> ServiceProcess:
        setup_process(settings)
        db = Database.connect(settings.database_url, application_name=settings.service_name)
        readiness = Readiness(db.answers)
        ops = None
        if settings.ops_port:
            ops = await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness)
        await check_database(settings, must_answer=settings.migrate_on_start)
        if settings.migrate_on_start:
            await migrate_schema(settings.database_url)
        await check_kafka(settings)
        epoch = await BrokerEpoch.checked(settings.kafka_cluster(), settings.broker_check_seconds)
        process = cls(settings, db, readiness, epoch)
        if ops is not None:
            process.run(ops)
        return process

    async def relay_outbox(self, outbox: Outbox) -> None:
        producer = Producer(self.settings.kafka_cluster())
        await producer.start()
        self.on_stop(producer.stop)
        relay = OutboxRelay(self.db, outbox, producer, self.settings.database_url, self.epoch)
        self.run(relay.run())
        self.run(relay.report_backlog())

    async def consume(
        self,
        group: str,
        topics: list[str],
        handler: Handler,
        ledger: ProcessedMessages,
        *,
        batch_handler: BatchHandler | None = None,
        wants: Callable[[str], bool] | None = None,
    ) -> None:
        """Consumes `topics` as `group`; `ledger` is the handler's record of what it handled, purged
        here. Messages the handler keeps failing on are kept beside it, in the same schema. With
        `batch_handler` or `wants`, see `Consumer`."""
        dead_letters = DeadLetters(self.db, ledger.table.metadata)
        consumer = Consumer(
            self.settings.kafka_cluster(), group, topics, handler, self.epoch, dead_letters=dead_letters,
            batch_handler=batch_handler, wants=wants,
        )  # fmt: skip
        await consumer.start()
        self.readiness.require(consumer.joined.is_set)
        self.on_stop(consumer.stop)
        self.run(consumer.run())
        self.run(consumer.report_lag())
        self.run(dead_letters.report_waiting(group))
        self.run(ledger.run_purge(self.db))

    async def serve_grpc(
        self, add_to_server: Callable[[Servicer, grpc.aio.Server], None], servicer: Servicer, listen: str
    ) -> int:
        """Serves `servicer`, registered by its generated `add_…Servicer_to_server`."""
        if not isinstance(self.settings, InternalAuthSettings):
            raise TypeError("a process that serves gRPC needs InternalAuthSettings")
        server = rpc.create_server(self.settings.verifier())
        add_to_server(servicer, server)
        port = await rpc.start_server(server, listen)
        self.on_stop(lambda: server.stop(GRPC_STOP_GRACE_SECONDS))
        return port

    async def run_until_stopped(self) -> None:
        self.readiness.mark_started()
        await run_until_stopped([self.epoch.run(), *self.tasks], self.cleanups)


def run_command(
    main: Callable[[], Coroutine[Any, Any, None]],
    migrate_schema: Callable[[str], Coroutine[Any, Any, None]],
    settings_class: type[CommonSettings],
    *,
    consumer_schema: str | None = None,
) -> None:
    """The `__main__` of a database-backed service: no argument runs the service; `migrate`
    migrates its schema and exits (a deployment's migration job, before the services start); for
    a service that consumes, `dead-letters ...` is the operator's command for its dead letters."""
    arguments = sys.argv[1:]
    if not arguments:
        run_in_process_loop(main())
    elif arguments == ["migrate"]:
        settings = settings_class.load()
        setup_process(settings)
        run_in_process_loop(_with_database(settings, lambda: migrate_schema(settings.database_url)))
    elif arguments[:1] == ["dead-letters"] and consumer_schema is not None:
        settings = settings_class.load()
        command = arguments[1:]
        sys.exit(
            run_in_process_loop(
                _with_database(
                    settings,
                    lambda: run_dead_letters_command(
                        settings.database_url, settings.kafka_cluster(), consumer_schema, command
                    ),
                )
            )
        )
    else:
        sys.exit(f"unknown arguments {' '.join(arguments)!r}: run with none, `migrate`, or `dead-letters`")


async def _with_database(settings: CommonSettings, work: Callable[[], Awaitable[Result]]) -> Result:
    await check_database(settings, must_answer=True)
    return await work()
