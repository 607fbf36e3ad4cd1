"""The jobs service, as the dispatcher's timer loop calls it."""

from __future__ import annotations

from printcloud.core import rpc
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc


class JobsClient:
    def __init__(self, stub: jobs_pb2_grpc.JobsStub) -> None:
        self.stub = stub

    async def fire_due_timers(self, limit: int) -> dict[str, int]:
        """Fires the due timers of at most `limit` jobs; how many fired, by timer. A bare trigger:
        the request carries only the limit, the rule and the policy are jobs' own."""
        fired: jobs_pb2.FireDueTimersResponse = await rpc.call(
            self.stub.FireDueTimers, jobs_pb2.FireDueTimersRequest(limit=limit)
        )
        return {
            "resend": fired.resent,
            "requeue": fired.requeued,
            "spooler_timeout": fired.timed_out,
            "expire": fired.expired,
        }
