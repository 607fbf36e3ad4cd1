"""Wiring of the dispatcher process: the jobs channel, the trigger loop and the ops server."""

from __future__ import annotations

from collections.abc import Awaitable

from printcloud.core import rpc
from printcloud.core.process.lifecycle import run_until_stopped, setup_process
from printcloud.core.rpc import service_auth
from printcloud.core.telemetry.ops import Readiness, serve_ops
from printcloud.dispatcher.settings import Settings
from printcloud.dispatcher.workers.timer_loop import TimerLoop
from printcloud.v1 import jobs_pb2_grpc


async def main() -> None:
    settings = Settings.load()
    setup_process(settings)
    readiness = Readiness()
    jobs_channel = rpc.channel(settings.jobs_grpc_target, settings.caller(service_auth.DISPATCHER))
    loop = TimerLoop(jobs_pb2_grpc.JobsStub(jobs_channel), settings.timer_batch_size, settings.timer_poll_seconds)
    tasks: list[Awaitable[None]] = [loop.run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))
    readiness.mark_started()
    await run_until_stopped(tasks, [jobs_channel.close])
