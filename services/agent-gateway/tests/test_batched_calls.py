"""Agents' reports and pushes' claims go to jobs, and agents' hellos and goodbyes to devices, in
batches: those that arrive while a call is on its way go together. A call cancelled before it went
is never sent: an agent back before its goodbye went leaves it unsent."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from printcloud.agent_gateway.domain.file_tokens import ComputerScope
from printcloud.agent_gateway.transport.devices_client import DevicesClient
from printcloud.agent_gateway.transport.jobs_client import JobsClient
from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.contracts.errors import ApiError
from printcloud.protocol.messages import ComputerInfo, Hello
from printcloud.protocol.parsing import GatewayMessage
from printcloud.v1 import devices_pb2, devices_pb2_grpc, jobs_pb2, jobs_pb2_grpc
from tests.support.fakes.devices import FakeDevices
from tests.support.fakes.jobs import FakeJobs
from tests.support.grpc_server import serving


class HeldJobs(FakeJobs):
    """Holds its first batch until released, as a busy jobs service would."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.arrived = asyncio.Event()
        self.batches: list[int] = []

    async def _held(self, size: int) -> None:
        self.batches.append(size)
        self.arrived.set()
        if len(self.batches) == 1:
            await self.release.wait()

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        await self._held(len(request.reports))
        return await super().ReportJobStates(request, context)

    async def ClaimDeliveries(self, request: jobs_pb2.ClaimDeliveriesRequest, context: Any) -> Any:
        await self._held(len(request.claims))
        return await super().ClaimDeliveries(request, context)


class EarlierJobs(FakeJobs):
    """A jobs replica of a release before batches: it does not know the calls."""

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

    async def ClaimDeliveries(self, request: jobs_pb2.ClaimDeliveriesRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")


def _reports(jobs: FakeJobs, count: int) -> list[jobs_pb2.ReportJobStateRequest]:
    made = [jobs.add_job("o", "live", "p") for _ in range(count)]
    for job in made:
        jobs.jobs[job.id].move("sent")
    return [jobs_pb2.ReportJobStateRequest(computer_id=j.computer_id, job_id=j.id, state="received") for j in made]


async def test_reports_that_arrive_while_a_call_is_on_its_way_go_together_in_the_next() -> None:
    jobs = HeldJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = JobsClient(jobs_pb2_grpc.JobsStub(channel)).state_reports
        first, *others = _reports(jobs, 4)
        sent_first = asyncio.create_task(batches.call(first))
        await asyncio.wait_for(jobs.arrived.wait(), 5)
        waiting = [asyncio.create_task(batches.call(report)) for report in others]
        await asyncio.sleep(0)  # every later report has joined the queue
        jobs.release.set()
        await asyncio.gather(sent_first, *waiting)
    assert jobs.batches == [1, 3]
    assert [jobs.jobs[r.job_id].job.state for r in [first, *others]] == ["received"] * 4


async def test_a_refused_report_raises_for_its_sender_alone() -> None:
    jobs = HeldJobs()
    jobs.release.set()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = JobsClient(jobs_pb2_grpc.JobsStub(channel)).state_reports
        good, bad = _reports(jobs, 2)
        bad.computer_id = "another computer"
        results = await asyncio.gather(batches.call(good), batches.call(bad), return_exceptions=True)
    assert results[0] is None
    assert isinstance(results[1], ApiError) and results[1].code == "not_found"


async def test_a_jobs_of_an_earlier_release_takes_the_reports_one_by_one() -> None:
    jobs = EarlierJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = JobsClient(jobs_pb2_grpc.JobsStub(channel)).state_reports
        reports = _reports(jobs, 2)
        await asyncio.gather(*(batches.call(report) for report in reports))
        reports[0].state = "bogus"
        with pytest.raises(ApiError) as refused:
            await batches.call(reports[0])
    assert refused.value.code == "invalid_request"
    assert len(jobs.recorder.named("ReportJobState")) == 3
    assert [jobs.jobs[r.job_id].job.state for r in reports] == ["received", "received"]


async def test_claims_that_arrive_while_a_call_is_on_its_way_go_together_and_each_gets_its_answer() -> None:
    jobs = HeldJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        client = JobsClient(jobs_pb2_grpc.JobsStub(channel))
        made = [jobs.add_job("o", "live", "p") for _ in range(4)]
        first = asyncio.create_task(client.claim_delivery(made[0].computer_id, made[0].id, None))
        await asyncio.wait_for(jobs.arrived.wait(), 5)
        others = [
            asyncio.create_task(client.claim_delivery(made[1].computer_id, made[1].id, None)),
            asyncio.create_task(client.claim_delivery(made[1].computer_id, made[1].id, None)),  # lost to the one before
            asyncio.create_task(client.claim_delivery("another computer", made[2].id, None)),
        ]
        await asyncio.sleep(0)  # every later claim has joined the queue
        jobs.release.set()
        answers = await asyncio.gather(first, *others, return_exceptions=True)
    assert jobs.batches == [1, 3]
    assert [getattr(answer, "job_id", answer) for answer in answers[:3]] == [made[0].id, made[1].id, None]
    assert isinstance(answers[3], ApiError) and answers[3].code == "not_found"
    assert [r.job_id for r in jobs.recorder.named("Claimed")] == [made[0].id, made[1].id]


async def test_a_jobs_of_an_earlier_release_takes_the_claims_one_by_one() -> None:
    jobs = EarlierJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        client = JobsClient(jobs_pb2_grpc.JobsStub(channel))
        made = [jobs.add_job("o", "live", "p") for _ in range(2)]
        claimed = await asyncio.gather(*(client.claim_delivery(j.computer_id, j.id, None) for j in made))
    assert [job.job_id if job else None for job in claimed] == [j.id for j in made]
    assert len(jobs.recorder.named("ClaimDelivery")) == 2


class HeldDevices(FakeDevices):
    """Holds its first batch of hellos until released, as devices busy with a storm would."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.arrived = asyncio.Event()
        self.batches: list[int] = []

    async def AgentsConnected(self, request: devices_pb2.AgentsConnectedRequest, context: Any) -> Any:
        self.batches.append(len(request.agents))
        self.arrived.set()
        if len(self.batches) == 1:
            await self.release.wait()
        return await super().AgentsConnected(request, context)


class EarlierDevices(FakeDevices):
    """A devices replica of a release before batches: it does not know the calls."""

    async def AuthenticateAgents(self, request: devices_pb2.AuthenticateAgentsRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

    async def AgentsConnected(self, request: devices_pb2.AgentsConnectedRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

    async def AgentsDisconnected(self, request: devices_pb2.AgentsDisconnectedRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")


HELLO = Hello(protocol_version=1, computer=ComputerInfo(hostname="desk", os="linux", agent_version="1.1.0"))


async def test_hellos_that_arrive_while_a_call_is_on_its_way_go_together_and_one_is_refused_alone() -> None:
    devices = HeldDevices()
    computers = [devices.add_computer("o", "live", state="offline") for _ in range(3)]
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as channel:
        client = DevicesClient(devices_pb2_grpc.DevicesStub(channel))
        first = asyncio.create_task(client.agent_connected(computers[0].id, HELLO, "gw-a"))
        await asyncio.wait_for(devices.arrived.wait(), 5)
        others = [
            asyncio.create_task(client.agent_connected(computers[1].id, HELLO, "gw-a")),
            asyncio.create_task(client.agent_connected("a deleted computer", HELLO, "gw-a")),
            asyncio.create_task(client.agent_connected(computers[2].id, HELLO, "gw-a")),
        ]
        await asyncio.sleep(0)  # every later hello has joined the queue
        devices.release.set()
        answers = await asyncio.gather(first, *others, return_exceptions=True)
    assert devices.batches == [1, 3]
    assert answers[:2] == [None, None] and answers[3] is None
    assert isinstance(answers[2], ApiError) and answers[2].code == "not_found"
    assert [c.state for c in computers] == ["online"] * 3


async def test_credentials_in_one_call_each_get_their_own_answer() -> None:
    devices = FakeDevices()
    computers = [devices.add_computer("o", "live"), devices.add_computer("o", "test", state="disabled")]
    for n, computer in enumerate(computers):
        devices.add_agent(f"pca_{n}", computer)
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as channel:
        client = DevicesClient(devices_pb2_grpc.DevicesStub(channel))
        answers = await asyncio.gather(
            *(client.authenticate_agent(credential) for credential in ("pca_0", "pca_unknown", "pca_1")),
            return_exceptions=True,
        )
    assert [len(r.agents) for r in devices.recorder.named("AuthenticateAgents")] == [3], "all three in one call"
    first, unknown, disabled = answers
    assert not isinstance(first, BaseException) and not isinstance(disabled, BaseException)
    assert (first.computer.computer_id, first.computer.mode, first.disabled) == (computers[0].id, "live", False)
    assert (disabled.computer.computer_id, disabled.computer.mode, disabled.disabled) == (computers[1].id, "test", True)
    assert isinstance(unknown, ApiError) and unknown.code == "unauthorized"


async def test_a_devices_of_an_earlier_release_takes_credentials_hellos_and_goodbyes_one_by_one() -> None:
    devices = EarlierDevices()
    computers = [devices.add_computer("o", "live", state="offline") for _ in range(2)]
    devices.add_agent("pca_0", computers[0])
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as channel:
        client = DevicesClient(devices_pb2_grpc.DevicesStub(channel))
        identity = await client.authenticate_agent("pca_0")
        assert identity.computer.computer_id == computers[0].id
        with pytest.raises(ApiError):
            await client.authenticate_agent("pca_unknown")
        await asyncio.gather(*(client.agent_connected(c.id, HELLO, "gw-a") for c in computers))
        assert [c.state for c in computers] == ["online", "online"]
        await asyncio.gather(*(client.agent_disconnected(c.id, "gw-a") for c in computers))
    assert [c.state for c in computers] == ["offline", "offline"]
    assert len(devices.recorder.named("AgentConnected")) == len(devices.recorder.named("AgentDisconnected")) == 2
    assert len(devices.recorder.named("AuthenticateAgent")) == 2


class HeldGoodbyes(FakeDevices):
    """Holds its first batch of goodbyes until released, as a busy devices service would."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.arrived = asyncio.Event()
        self.batches: list[list[str]] = []

    async def AgentsDisconnected(self, request: devices_pb2.AgentsDisconnectedRequest, context: Any) -> Any:
        self.batches.append([goodbye.computer_id for goodbye in request.agents])
        self.arrived.set()
        if len(self.batches) == 1:
            await self.release.wait()
        return await super().AgentsDisconnected(request, context)


async def test_a_cancelled_call_still_waiting_is_never_sent_and_one_on_its_way_ends_once_answered() -> None:
    devices = HeldGoodbyes()
    computers = [devices.add_computer("o", "live") for _ in range(2)]
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as channel:
        client = DevicesClient(devices_pb2_grpc.DevicesStub(channel))
        on_its_way = asyncio.create_task(client.agent_disconnected(computers[0].id, "gw-a"))
        await asyncio.wait_for(devices.arrived.wait(), 5)
        waiting = asyncio.create_task(client.agent_disconnected(computers[1].id, "gw-a"))
        await asyncio.sleep(0)  # in the queue behind the call on its way
        waiting.cancel()
        await asyncio.wait([waiting], timeout=5)
        assert waiting.cancelled()
        on_its_way.cancel()
        for _ in range(20):
            await asyncio.sleep(0)
        assert not on_its_way.done(), "devices may still record it: the caller must not go on yet"
        devices.release.set()
        await asyncio.wait([on_its_way], timeout=5)
        assert on_its_way.cancelled()
        # Whatever the sender does next, the withdrawn goodbye is not among it.
        await client.agent_disconnected(computers[0].id, "gw-a")
    assert devices.batches == [[computers[0].id], [computers[0].id]]
    assert [c.state for c in computers] == ["offline", "online"]


class Link:
    """An agent's connection, as the use cases see it."""

    def __init__(self, computer_id: str) -> None:
        self.computer = ComputerScope(computer_id, "o", "live")

    def send(self, message: GatewayMessage) -> bool:
        return True

    async def close(self, code: int, reason: str) -> None:
        return None


async def test_an_agent_back_before_its_goodbye_went_stays_online_and_one_on_its_way_goes_first() -> None:
    devices = HeldGoodbyes()
    computers = [devices.add_computer("o", "live", state="offline") for _ in range(2)]
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as channel:
        agents = Agents(DevicesClient(devices_pb2_grpc.DevicesStub(channel)), "gw-a", heartbeat_seconds=30.0)
        links = [Link(computer.id) for computer in computers]
        for link in links:
            await agents.connect(link.computer.computer_id, HELLO)
            await agents.welcome(link)
        assert [c.state for c in computers] == ["online", "online"]
        # Both connections end; the first goodbye is on its way and held, the second waits behind it.
        leaving = [asyncio.create_task(agents.disconnected(links[0]))]
        await asyncio.wait_for(devices.arrived.wait(), 5)
        leaving.append(asyncio.create_task(agents.disconnected(links[1])))
        await asyncio.sleep(0)
        # Both agents come back on this replica.
        back = [asyncio.create_task(agents.connect(c.id, HELLO)) for c in computers]
        await asyncio.wait([back[1]], timeout=5)
        assert back[1].done(), "the waiting goodbye was withdrawn, not waited for"
        assert not back[0].done(), "the goodbye on its way is recorded before the hello"
        devices.release.set()
        await asyncio.wait_for(asyncio.gather(*back, *leaving), 5)
    assert devices.batches == [[computers[0].id]]
    assert [c.state for c in computers] == ["online", "online"]
    hellos = [hello.computer_id for call in devices.recorder.named("AgentsConnected") for hello in call.agents]
    assert hellos[-2:] == [computers[1].id, computers[0].id]
