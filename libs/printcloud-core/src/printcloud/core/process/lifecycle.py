"""Every process's life: its event loop, its logs and telemetry, and its tasks run until a stop
signal (SIGINT/SIGTERM) or the failure of one of them, then its clean-ups."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import uvloop
from prometheus_client import Gauge

from printcloud.core import release
from printcloud.core.settings import CommonSettings
from printcloud.core.telemetry.logs import configure_logging
from printcloud.core.telemetry.traces import configure_telemetry

log = logging.getLogger(__name__)

# 1 in every process, named by its own label: scrape-target labels (job, service) depend on how
# the process is deployed, this one does not, so alerts can tell a service that is gone entirely.
# `version` is the release it runs: during a rolling upgrade, replicas of both releases show.
SERVICE_INFO = Gauge(
    "printcloud_service_info", "The PrintCloud service this process runs", ["printcloud_service", "version"]
)

Result = TypeVar("Result")


def run_in_process_loop(main: Coroutine[Any, Any, Result]) -> Result:
    """Runs `main` to its end on the loop every service process uses: uvloop, whose loop, timers
    and socket transports are native code; asyncio's own loop spends a large share of a busy
    service's CPU on its Python-level scheduling (docs/performance.md, "Profile findings")."""
    return uvloop.run(main)


def setup_process(settings: CommonSettings) -> None:
    configure_logging(settings.service_name, settings.log_level)
    configure_telemetry(settings.service_name, settings.otel_exporter, settings.instance_id)
    SERVICE_INFO.labels(settings.service_name, release.version()).set(1)
    log.info("starting", extra={"version": release.version()})


async def wait_for_stop_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def run_until_stopped(
    tasks: list[Awaitable[Any]],
    cleanups: list[Callable[[], Awaitable[Any]]],
) -> None:
    """Runs `tasks` (possibly none) until a stop signal or until one of them fails, then runs
    `cleanups` in reverse.

    A background task that dies takes the process down with it, so the supervisor (make dev,
    Kubernetes) restarts it rather than leaving a half-working service.
    """
    # What start-up made lives as long as the process: out of the collector's full passes, each of
    # which would walk all of it (docs/performance.md, "The job's path, third round").
    gc.collect()
    gc.freeze()
    running = [asyncio.ensure_future(t) for t in tasks]
    stopper = asyncio.create_task(wait_for_stop_signal())
    try:
        done, _ = await asyncio.wait([*running, stopper], return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task is not stopper and task.exception() is not None:
                log.error("background task failed; stopping", exc_info=task.exception())
                raise SystemExit(1)
    finally:
        for task in [*running, stopper]:
            task.cancel()
        await asyncio.gather(*running, stopper, return_exceptions=True)
        for cleanup in reversed(cleanups):
            try:
                await cleanup()
            except Exception:
                log.warning("cleanup failed", exc_info=True)
        gc.unfreeze()
