"""Domain events the dispatcher reacts to."""

from __future__ import annotations

import logging

from printcloud.core import rpc, topics
from printcloud.core.bus import Producer
from printcloud.core.messages import Message
from printcloud.dispatcher.domain.commands import deliver_job
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc

log = logging.getLogger(__name__)


class DomainEventHandler:
    def __init__(self, jobs: jobs_pb2_grpc.JobsStub, producer: Producer) -> None:
        self.jobs = jobs
        self.producer = producer

    async def __call__(self, event: Message) -> None:
        if event.type == "computer.online":
            await self._deliver_pending(event)

    async def _deliver_pending(self, event: Message) -> None:
        """Jobs created while the computer was away go out now, oldest first.

        Repeating a delivery is harmless (the agent-gateway sends only queued or sent jobs, and
        agents deduplicate by job id), so a redelivered event needs no ledger here.
        """
        computer_id = event.data["id"]
        pending = await rpc.call(self.jobs.ListPendingJobs, jobs_pb2.ListPendingJobsRequest(computer_id=computer_id))
        commands = [deliver_job(event.organization_id, event.mode, computer_id, job.job_id) for job in pending.items]
        if commands:
            await self.producer.send_many([(topics.AGENT_COMMANDS, computer_id, c.encode(), {}) for c in commands])
            log.info(
                "queued jobs sent to a computer that came online",
                extra={"computer_id": computer_id, "jobs": len(commands)},
            )
