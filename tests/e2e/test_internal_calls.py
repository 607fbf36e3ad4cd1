"""The probe that read another organization's job straight from the jobs service, rerun: every
internal gRPC port refuses a caller without a service token, and a service that may not call it."""

from __future__ import annotations

import grpc
import pytest

from printcloud.core.rpc import service_auth
from printcloud.core.rpc.service_auth import CallerCredential
from printcloud.devstack.stack import Stack
from printcloud.v1 import (
    common_pb2,
    devices_pb2,
    devices_pb2_grpc,
    jobs_pb2,
    jobs_pb2_grpc,
    webhooks_pb2,
    webhooks_pb2_grpc,
)
from tests.e2e.client import PDF_BASE64
from tests.e2e.conftest import Tenant


@pytest.fixture(scope="module")
def job_id(client, virtual_printers: dict) -> str:
    job = client.post(
        "/v1/printjobs",
        json={
            "printerId": virtual_printers["virtual-office"]["id"],
            "title": "internal",
            "contentType": "pdf_base64",
            "content": PDF_BASE64,
        },
    ).json()
    return str(job["id"])


async def _status(target: str, call: str, request: object, credential: CallerCredential | None) -> grpc.StatusCode:
    metadata = [(service_auth.TOKEN_METADATA_KEY, credential.token())] if credential else []
    async with grpc.aio.insecure_channel(target) as channel:
        stubs = {
            "GetJob": jobs_pb2_grpc.JobsStub(channel).GetJob,
            "ReadJobFile": jobs_pb2_grpc.JobsStub(channel).ReadJobFile,
            "ListComputers": devices_pb2_grpc.DevicesStub(channel).ListComputers,
            "ListEndpoints": webhooks_pb2_grpc.WebhooksStub(channel).ListEndpoints,
        }
        try:
            answer = stubs[call](request, metadata=metadata, timeout=10)
            if call == "ReadJobFile":
                async for _ in answer:  # type: ignore[attr-defined]
                    pass
            else:
                await answer
        except grpc.aio.AioRpcError as error:
            return error.code()
    return grpc.StatusCode.OK


async def test_no_internal_port_answers_a_caller_without_a_valid_token(
    stack: Stack, tenant: Tenant, job_id: str
) -> None:
    scope = common_pb2.Scope(organization_id=tenant.org_id, mode="test")
    c = stack.config
    calls = [
        (f"127.0.0.1:{c.jobs_grpc_port}", "GetJob", jobs_pb2.GetJobRequest(scope=scope, id=job_id)),
        (f"127.0.0.1:{c.jobs_grpc_port}", "ReadJobFile", jobs_pb2.AgentJobRequest(job_id=job_id)),
        (f"127.0.0.1:{c.devices_grpc_port}", "ListComputers", devices_pb2.ListComputersRequest(scope=scope)),
        (f"127.0.0.1:{c.webhooks_grpc_port}", "ListEndpoints", webhooks_pb2.ListEndpointsRequest(scope=scope)),
    ]
    forged = CallerCredential(service_auth.API_GATEWAY, "a-secret-that-is-not-the-stacks-own-32+")
    for target, call, request in calls:
        assert await _status(target, call, request, None) == grpc.StatusCode.UNAUTHENTICATED, call
        assert await _status(target, call, request, forged) == grpc.StatusCode.UNAUTHENTICATED, call
    # The right secret, the wrong caller: the dispatcher has no business with devices or webhooks.
    dispatcher = CallerCredential(service_auth.DISPATCHER, stack.internal_auth_secret)
    for target, call, request in calls[2:]:
        assert await _status(target, call, request, dispatcher) == grpc.StatusCode.UNAUTHENTICATED, call
    # And the gateway's own credential is what the real path uses.
    gateway = CallerCredential(service_auth.API_GATEWAY, stack.internal_auth_secret)
    assert await _status(*calls[0], gateway) == grpc.StatusCode.OK
