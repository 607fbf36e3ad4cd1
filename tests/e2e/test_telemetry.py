"""Every process serves metrics and health checks, and one trace id follows a job across HTTP,
gRPC and Kafka into the logs of every service it passes through."""

from __future__ import annotations

import base64
import json
import secrets
from pathlib import Path

import httpx
import pytest
from opentelemetry.trace import SpanKind
from prometheus_client.parser import text_string_to_metric_families

from printcloud.core import release
from printcloud.devstack.stack import SERVICES, Stack
from printcloud.protocol.constants import MAX_INLINE_FILE_BYTES
from tests.e2e.client import MINIMAL_PDF, PDF_BASE64, eventually
from tests.e2e.jobs_api import create, pdf_body, wait_terminal
from tests.e2e.stacks import LogFile
from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan

# Larger than a job message carries, so that the agent downloads it and the download is traced.
DOWNLOADED_PDF_BASE64 = base64.b64encode(MINIMAL_PDF + b"%" + b"x" * (MAX_INLINE_FILE_BYTES + 1) + b"\n").decode()


@pytest.mark.parametrize("service", [name for name, _ in SERVICES])
def test_every_process_serves_health_and_prometheus_metrics(stack: Stack, service: str) -> None:
    with httpx.Client(base_url=stack.ops_url(service), timeout=5) as ops:
        assert ops.get("/healthz").json()["status"] == "ok"
        assert ops.get("/readyz").status_code == 200
        metrics = ops.get("/metrics")
    assert metrics.status_code == 200
    assert "text/plain" in metrics.headers["content-type"]
    assert "process_resident_memory_bytes" in metrics.text


def test_service_metrics_count_real_work(stack: Stack, client: httpx.Client, virtual_printers: dict) -> None:
    client.get("/v1/printers")
    with httpx.Client(timeout=5) as ops:
        devices = ops.get(f"{stack.ops_url('devices')}/metrics").text
        relay = ops.get(f"{stack.ops_url('jobs')}/metrics").text
    assert 'printcloud_grpc_server_handled_total{code="OK",method="/printcloud.v1.Devices/ListPrinters"}' in devices
    assert "printcloud_outbox_published_total" in relay


def samples(ops_url: str, metric: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples of `metric` a process serves, by their sorted labels."""
    text = httpx.get(f"{ops_url}/metrics", timeout=5).text
    return {
        tuple(sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == metric
    }


def test_the_stack_file_lists_the_ops_server_of_every_process(stack: Stack, tmp_path: Path) -> None:
    """`make dev` writes .dev/stack.json with this method; its ops ports are chosen at each start."""
    stack.write_state_file(tmp_path / "stack.json")
    listed = json.loads((tmp_path / "stack.json").read_text())["ops_urls"]
    assert set(listed) == set(stack.services)
    for name, url in listed.items():
        labels = (("printcloud_service", name), ("version", release.version()))
        assert samples(url, "printcloud_service_info") == {labels: 1.0}, name


def test_a_gateway_without_a_shared_store_reports_no_store_outage(stack: Stack) -> None:
    """One replica keeps its rate limits in the process: it has no store that could be down."""
    assert samples(stack.ops_url("api-gateway"), "printcloud_rate_limit_store_up") == {}


def test_jobs_that_end_are_counted_by_final_state_and_mode(
    stack: Stack, client: httpx.Client, virtual_printers: dict
) -> None:
    def finished() -> dict[tuple[tuple[str, str], ...], float]:
        return samples(stack.ops_url("jobs"), "printcloud_jobs_finished_total")

    before = finished()
    done = (("mode", "test"), ("state", "done"))
    assert len(before) == 8, "every final state and mode has its series from the start"
    printed = create(client, pdf_body(virtual_printers["virtual-office"]["id"], title="counted"))
    assert wait_terminal(client, printed["id"], timeout=60)["state"] == "done"
    # Other tests' jobs may end meanwhile: at least this one is counted.
    eventually(lambda: finished()[done] >= before[done] + 1, what="the done job counted")


def test_one_trace_follows_a_job_through_http_grpc_and_kafka(
    client: httpx.Client, virtual_printers: dict, service_logs: LogFile
) -> None:
    printer = virtual_printers["virtual-office"]
    # Jobs keeps the printers it has asked devices for; a PATCH has it ask again, so that the job's
    # create crosses devices too.
    assert client.patch(f"/v1/printers/{printer['id']}", json={"enabled": True}).status_code == 200
    trace_id = secrets.token_hex(16)
    request_id = f"trace-test-{secrets.token_hex(4)}"
    response = client.post(
        "/v1/printjobs",
        headers={"traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-01", "X-Request-Id": request_id},
        json={
            "printerId": printer["id"],
            "title": "traced",
            "contentType": "pdf_base64",
            "content": PDF_BASE64,
        },
    )
    assert response.status_code == 201, response.text
    assert response.headers["x-request-id"] == request_id
    job_id = response.json()["id"]

    def trace_reached_the_agent() -> list[dict] | None:
        records = list(service_logs.records())
        seen = {name for name, record in records if record.get("trace_id") == trace_id}
        # Debug lines (gRPC, Kafka client) carry the trace before the send is logged, so wait for the send itself.
        sent = [
            record
            for name, record in records
            if name == "agent-gateway" and record.get("msg") == "job sent to agent" and record.get("job_id") == job_id
        ]
        # HTTP into the gateway; gRPC into jobs and devices; Kafka (via the outbox) into the agent-gateway.
        wanted = {"api-gateway", "jobs", "devices", "agent-gateway"}
        return sent if sent and wanted <= seen else None

    sent = eventually(trace_reached_the_agent, timeout=20, what="the trace in every service and the job sent")
    assert sent[0]["trace_id"] == trace_id and sent[0]["request_id"] == request_id


def _ancestry(span: ReceivedSpan, by_id: dict[str, ReceivedSpan]) -> list[ReceivedSpan]:
    """`span` and its parents up to the first whose parent was not received (the caller's own span)."""
    chain = [span]
    while chain[-1].parent_span_id in by_id and len(chain) <= len(by_id):
        chain.append(by_id[chain[-1].parent_span_id])
    return chain


def test_one_exported_trace_follows_a_job_from_the_gateway_to_the_agent_and_back(
    client: httpx.Client, virtual_printers: dict, otlp_receiver: OtlpReceiver
) -> None:
    trace_id, caller_span = secrets.token_hex(16), secrets.token_hex(8)
    response = client.post(
        "/v1/printjobs",
        headers={"traceparent": f"00-{trace_id}-{caller_span}-01"},
        json={
            "printerId": virtual_printers["virtual-office"]["id"],
            "title": "traced over OTLP",
            "contentType": "pdf_base64",
            "content": DOWNLOADED_PDF_BASE64,
        },
    )
    assert response.status_code == 201, response.text

    def reported_done() -> list[ReceivedSpan] | None:
        spans = otlp_receiver.trace(trace_id)
        done = [s for s in spans if s.service == "agent-gateway" and s.name == "job.state done"]
        # Jobs records each report (in a batch of any agents' reports) under the report's own trace,
        # exported a moment after the report's span.
        answered = [s for s in spans if s.service == "jobs" and s.name.startswith("record job.state ")]
        # Each process exports its own batches: wait until no received span misses its parent.
        ids = {s.span_id for s in spans} | {caller_span}
        whole = all(s.parent_span_id in ids for s in spans)
        return spans if done and len(answered) >= 3 and whole else None

    try:
        spans = eventually(reported_done, timeout=60, what="the job's trace up to the agent's done report")
    except AssertionError:
        seen = sorted({(s.service, s.name) for s in otlp_receiver.trace(trace_id)})
        raise AssertionError(f"the trace has only {seen}") from None
    by_id = {span.span_id: span for span in spans}

    # One trace, from the caller's span down: every span's parents lead back to the gateway's.
    roots = [s for s in spans if s.parent_span_id == caller_span]
    assert len(roots) == 1, [(s.service, s.name, s.span_id, s.attributes) for s in roots]
    (root,) = roots
    assert (root.service, root.name, root.kind) == ("api-gateway", "POST /v1/printjobs", SpanKind.SERVER.value + 1)
    assert all(_ancestry(span, by_id)[-1] == root for span in spans)

    def chain_of(service: str, name: str) -> list[tuple[str, str]]:
        span = next(s for s in spans if s.service == service and s.name == name)
        return [(s.service, s.name) for s in reversed(_ancestry(span, by_id))]

    # Gateway -> jobs (gRPC; a document this small goes in one message) -> Kafka (outbox relay's
    # send, agent-gateway's consume) -> the agent's WebSocket -> the agent's download and its
    # reports, back into jobs.
    to_the_agent = chain_of("agent-gateway", "send job to agent")
    assert to_the_agent[:3] == [
        ("api-gateway", "POST /v1/printjobs"),
        ("api-gateway", "printcloud.v1.Jobs/CreateSmallJob"),
        ("jobs", "/printcloud.v1.Jobs/CreateSmallJob"),
    ]
    assert to_the_agent[-3:] == [
        ("jobs", "send printcloud.agent-commands"),
        ("agent-gateway", "consume printcloud.agent-commands"),
        ("agent-gateway", "send job to agent"),
    ]
    download = chain_of("agent-gateway", "GET /agent/v1/jobs/{job_id}/file")
    assert download[:-1] == to_the_agent
    done = chain_of("agent-gateway", "job.state done")
    assert done[:-1] == to_the_agent
    names = {(s.service, s.name) for s in spans}
    assert ("jobs", "/printcloud.v1.Jobs/ReadJobFile") in names, "the download reads the file from jobs"
    job_written = [s for s in spans if "INSERT INTO jobs.print_jobs" in str(s.attributes.get("db.query.text"))]
    assert [(s.service, s.kind) for s in job_written] == [("jobs", SpanKind.CLIENT.value + 1)], "the job's statement"
    assert all("token" not in str(s.attributes) for s in spans), "the download token never reaches a span"
    assert all(headers.get("x-printcloud-test") == "e2e" for _, headers in otlp_receiver.requests)


def test_every_service_exports_its_metrics_over_otlp(
    otlp_receiver: OtlpReceiver, stack: Stack, client: httpx.Client
) -> None:
    client.get("/v1/printers")
    expected = {
        "jobs": {"printcloud_grpc_server_handled", "printcloud_outbox_backlog_rows"},
        "api-gateway": {"printcloud_http_request_duration_seconds", "printcloud_db_pool_connections"},
        "agent-gateway": {"printcloud_agent_connections"},
        **{name: {"printcloud_service_info"} for name, _ in SERVICES},
    }

    def exported() -> dict[str, set[str]] | None:
        names = dict(otlp_receiver.metric_names)
        return names if all(wanted <= names.get(service, set()) for service, wanted in expected.items()) else None

    eventually(exported, timeout=30, what=f"metrics from every service: {expected}")
