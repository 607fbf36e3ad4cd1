"""Wiring of the dispatcher process."""

from __future__ import annotations

from printcloud.core import rpc, service_auth
from printcloud.core.ops import Readiness, serve_ops
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.dispatcher.settings import Settings
from printcloud.dispatcher.transport.timer_loop import TimerLoop
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc


async def main() -> None:
    settings = Settings.load()
    setup_process(settings)
    readiness = Readiness()
    jobs_channel = rpc.channel(settings.jobs_grpc_target, settings.caller(service_auth.DISPATCHER))
    request = jobs_pb2.FireDueTimersRequest(
        resend_after_seconds=settings.resend_after_seconds,
        max_resends=settings.max_resends,
        spooler_timeout_seconds=settings.spooler_timeout_seconds,
        limit=settings.timer_batch_size,
    )
    tasks = [TimerLoop(jobs_pb2_grpc.JobsStub(jobs_channel), request, settings.timer_poll_seconds).run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))
    readiness.mark_started()
    await run_until_stopped(tasks, [jobs_channel.close])
