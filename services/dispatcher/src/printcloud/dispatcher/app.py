"""Wiring of the dispatcher process: the jobs channel, the trigger loop and the ops server."""

from __future__ import annotations

from printcloud.core import rpc
from printcloud.core.process.bare_process import BareProcess
from printcloud.core.rpc import service_auth
from printcloud.dispatcher.settings import Settings
from printcloud.dispatcher.transport.jobs_client import JobsClient
from printcloud.dispatcher.workers.timer_loop import TimerLoop
from printcloud.v1 import jobs_pb2_grpc


async def main() -> None:
    settings = Settings.load()
    process = BareProcess.start(settings)

    jobs_channel = rpc.channel(settings.jobs_grpc_target, settings.caller(service_auth.DISPATCHER))
    process.on_stop(jobs_channel.close)
    jobs = JobsClient(jobs_pb2_grpc.JobsStub(jobs_channel))
    process.run(TimerLoop(jobs, settings.timer_batch_size, settings.timer_poll_seconds).run())

    await process.run_until_stopped()
