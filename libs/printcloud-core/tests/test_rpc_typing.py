"""`rpc.call` and `rpc.stream` take their request and answer types from the stub method: the type
checker refuses a request of another method, which `make lint` alone never shows."""

from __future__ import annotations

from pathlib import Path

from mypy import api

CONFIG = Path(__file__).parents[3] / "pyproject.toml"

PROBE = """
from printcloud.core import rpc
from printcloud.contracts.job_upload import upload_parts
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc


async def probe(stub: jobs_pb2_grpc.JobsStub) -> None:
    reveal_type(await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest(id="j")))
    reveal_type(await rpc.call(stub.CreateJob, upload_parts(jobs_pb2.CreateJobRequest(title="t"), b"%PDF-")))
    async for chunk in rpc.stream(stub.ReadJobFile, jobs_pb2.AgentJobRequest()):
        reveal_type(chunk)
    await rpc.call(stub.GetJob, jobs_pb2.ListJobsRequest())
    await rpc.call(stub.CreateJob, jobs_pb2.CreateJobPart())
"""


def test_calls_are_typed_by_the_stub_method(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    report, _, _ = api.run(
        ["--config-file", str(CONFIG), "--cache-dir", str(tmp_path / "cache"), "--follow-imports=silent", str(probe)]
    )
    lines = [line.split(":", 2)[1:] for line in report.splitlines() if line.startswith(str(probe))]
    found = {int(number): text.strip() for number, text in lines}
    assert found == {
        8: 'note: Revealed type is "printcloud.v1.jobs_pb2.PrintJob"',
        9: 'note: Revealed type is "printcloud.v1.jobs_pb2.CreateJobResponse"',
        11: 'note: Revealed type is "printcloud.v1.jobs_pb2.FileChunk"',
        12: 'error: Cannot infer value of type parameter "Request" of "call"  [misc]',
        13: 'error: Cannot infer value of type parameter "Request" of "call"  [misc]',
    }, report
