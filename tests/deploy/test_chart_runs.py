"""Run what the chart renders: each workload's command, arguments and environment, exactly as
rendered, started on this machine against a fresh PostgreSQL database and the embedded broker,
then a test job printed through them end to end.

The test plays the cluster's part, and only that part:
- every pod gets an address of its own on loopback (127.77.0.x), so the chart's ports are used
  as rendered and a listen address of 0.0.0.0 means that pod's address;
- Secrets are filled from SECRETS and `fieldRef` from the pod's name; a Secret volume is its items
  written to files of a directory of the pod's own, and a path under its mount path in a
  container's environment is that file;
- cluster DNS: a stub resolves each Service's full name to the pods its selector picks, and
  gRPC's `dns:///` targets ask that stub; a URL or host:port naming a Service by its short
  name gets the address of the pod behind it.
A variable the services do not read, a wrong port, a Service name or selector that matches
nothing, a probe on the wrong port, or a file named where no Secret is mounted fails the test.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from printcloud.devstack.infrastructure import Broker, external_postgres_url, start_broker, temporary_database
from tests.deploy.certificates import ServerCertificate, issue
from tests.deploy.chart import NAMESPACE, Manifest, of_kind, pod_spec, render
from tests.e2e.client import PDF_BASE64, eventually
from tests.support.dns_stub import dns_stub
from tests.support.otlp_receiver import OtlpReceiver

RELEASE = "pc"
COLLECTOR_TOKEN = secrets.token_hex(8)
# This machine's CA overrides, which no pod has (the image sets none): requests would let them
# replace the CA file an exporter is given.
HOST_ONLY = {"REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}
CLUSTER_DOMAIN = "cluster.local"
POD_NETWORK = "127.77.0."


@dataclass
class Pod:
    name: str
    address: str
    labels: dict[str, str]
    spec: dict[str, Any]
    log: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def port(self, container: dict[str, Any], port: int | str) -> int:
        if isinstance(port, int):
            return port
        return next(p["containerPort"] for p in container["ports"] if p["name"] == port)


@dataclass
class Cluster:
    """The parts of Kubernetes the rendered workloads rely on."""

    manifests: list[Manifest]
    secrets: dict[str, dict[str, str]]
    volumes: Path
    pods: list[Pod] = field(default_factory=list)
    dns_port: int = 0

    def services(self) -> dict[str, Manifest]:
        return {s["metadata"]["name"]: s for s in of_kind(self.manifests, "Service")}

    def backends(self, service: Manifest) -> list[Pod]:
        selector = service["spec"]["selector"]
        return [p for p in self.pods if selector.items() <= p.labels.items()]

    def dns_names(self) -> dict[str, list[str]]:
        return {
            f"{name}.{NAMESPACE}.svc.{CLUSTER_DOMAIN}": [p.address for p in self.backends(service)]
            for name, service in self.services().items()
        }

    def service_address(self, host: str, port: int) -> str:
        """The pod behind the Service `host` (by short name) that serves `port`."""
        service = self.services().get(host)
        assert service is not None, f"{host} is no Service of the release"
        backends = self.backends(service)
        assert backends, f"Service {host} selects no pod"
        served = {p["port"] for p in service["spec"]["ports"]}
        assert port in served, f"Service {host} has no port {port} (it has {sorted(served)})"
        return backends[0].address

    def networked(self, value: str, pod: Pod) -> str:
        if value == "0.0.0.0" or value.startswith("0.0.0.0:"):
            return pod.address + value.removeprefix("0.0.0.0")
        if value.startswith("dns:///"):
            return f"dns://127.0.0.1:{self.dns_port}/{value.removeprefix('dns:///')}"
        parts = urlsplit(value if "//" in value else f"//{value}")
        if parts.hostname in self.services() and parts.port:
            host = self.service_address(parts.hostname, parts.port)
            return value.replace(f"{parts.hostname}:{parts.port}", f"{host}:{parts.port}", 1)
        return value

    def mounted_secrets(self, container: dict[str, Any], pod: Pod) -> dict[str, Path]:
        """The container's Secret volumes, by mount path: the directory their items are written to."""
        volumes = {v["name"]: v for v in pod.spec.get("volumes", [])}
        mounted = {}
        for mount in container.get("volumeMounts", []):
            secret = volumes[mount["name"]].get("secret")
            if secret is None:
                continue
            directory = self.volumes / pod.name / mount["name"]
            directory.mkdir(parents=True, exist_ok=True)
            for item in secret["items"]:
                (directory / item["path"]).write_text(self.secrets[secret["secretName"]][item["key"]])
            mounted[mount["mountPath"]] = directory
        return mounted

    def environment(self, container: dict[str, Any], pod: Pod) -> dict[str, str]:
        mounted = self.mounted_secrets(container, pod)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PRINTCLOUD_", "OTEL_")) and k not in HOST_ONLY}
        for variable in container.get("env", []):
            source = variable.get("valueFrom")
            if source is None:
                value = variable["value"]
            elif "secretKeyRef" in source:
                ref = source["secretKeyRef"]
                value = self.secrets[ref["name"]][ref["key"]]
            else:
                assert source == {"fieldRef": {"fieldPath": "metadata.name"}}, source
                value = pod.name
            env[variable["name"]] = self.networked(value, pod)
            if value.startswith("/etc/printcloud/"):
                mount_path, _, file = value.rpartition("/")
                assert mount_path in mounted, f"{pod.name}: {variable['name']} names {value}, where nothing is mounted"
                env[variable["name"]] = str(mounted[mount_path] / file)
        return env

    def command(self, container: dict[str, Any], pod: Pod) -> list[str]:
        command = [*container["command"], *container.get("args", [])]
        assert command[0] == "python"
        return [sys.executable, *(self.networked(part, pod) for part in command[1:])]

    def schedule(self, workload: Manifest, tmp_path: Path, replica: int = 0) -> Pod:
        spec = pod_spec(workload)
        labels = (
            workload["metadata"]["labels"]
            if workload["kind"] == "Pod"
            else workload["spec"]["template"]["metadata"]["labels"]
        )
        name = f"{workload['metadata']['name']}-{replica}"
        pod = Pod(name, f"{POD_NETWORK}{len(self.pods) + 1}", labels, spec, tmp_path / f"{name}.log")
        self.pods.append(pod)
        return pod

    def schedule_replicas(self, deployment: Manifest, tmp_path: Path) -> list[Pod]:
        return [self.schedule(deployment, tmp_path, i) for i in range(deployment["spec"]["replicas"])]

    def run_to_completion(self, pod: Pod) -> None:
        """A Job's or a test pod's containers, init containers first, each to a zero exit."""
        for container in [*pod.spec.get("initContainers", []), *pod.spec["containers"]]:
            with pod.log.open("ab") as log:
                done = subprocess.run(
                    self.command(container, pod),
                    env=self.environment(container, pod),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=120,
                    check=False,
                )
            assert done.returncode == 0, f"{pod.name}/{container['name']} failed:\n{pod.log.read_text()[-3000:]}"

    def start(self, pod: Pod) -> None:
        (container,) = pod.spec["containers"]
        with pod.log.open("ab") as log:
            pod.processes.append(
                subprocess.Popen(
                    self.command(container, pod),
                    env=self.environment(container, pod),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )

    def wait_ready(self, pod: Pod) -> None:
        (container,) = pod.spec["containers"]
        probe = container["readinessProbe"]["httpGet"]
        url = f"http://{pod.address}:{pod.port(container, probe['port'])}{probe['path']}"

        def ready() -> bool:
            exited = pod.processes[0].poll()
            assert exited is None, f"{pod.name} exited with {exited}:\n{pod.log.read_text()[-3000:]}"
            try:
                return httpx.get(url, timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        eventually(ready, timeout=90, interval=0.3, what=f"{pod.name} ready at {url}")

    def stop(self) -> None:
        for pod in self.pods:
            for process in pod.processes:
                process.terminate()
        for pod in self.pods:
            for process in pod.processes:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture(scope="module")
async def database_url() -> AsyncIterator[str]:
    admin = external_postgres_url(prefer_local=True)
    assert admin, "no PostgreSQL on 127.0.0.1:5432 (or PRINTCLOUD_DEVSTACK_POSTGRES_URL)"
    async with temporary_database("printcloud_chart", admin) as url:
        yield url


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    running = start_broker(log_path=tmp_path_factory.mktemp("broker") / "broker.log")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def collector_certificate(tmp_path_factory: pytest.TempPathFactory) -> ServerCertificate:
    return issue(tmp_path_factory.mktemp("collector-tls"))


@pytest.fixture(scope="module")
def collector(collector_certificate: ServerCertificate) -> Iterator[OtlpReceiver]:
    """An OTLP collector behind a private CA, which the chart mounts from a Secret."""
    with OtlpReceiver(tls=collector_certificate.server_context()) as receiver:
        yield receiver


@pytest.fixture(scope="module")
def cluster(
    database_url: str,
    broker: Broker,
    collector: OtlpReceiver,
    collector_certificate: ServerCertificate,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Cluster]:
    values = {
        "postgres": {"existingSecret": "printcloud-postgres"},
        "agentFileTokenSecret": {"existingSecret": "printcloud-agent-files"},
        "internalAuthSecret": {"existingSecret": "printcloud-internal-auth"},
        "kafka": {"bootstrapServers": broker.bootstrap, "topicReplicationFactor": 1, "topicsJob": {"enabled": True}},
        "migrations": {"job": {"enabled": True}},
        "otlp": {
            "enabled": True,
            "endpoint": collector.endpoint,
            "headers": {"existingSecret": "printcloud-otlp-headers"},
            "metricExportIntervalSeconds": 1,
            "tls": {"existingSecret": "printcloud-otlp-tls"},
        },
        # Ports unlike the services' defaults: a port reaching a process by a misspelt variable
        # (so through its default) would then miss.
        "opsPort": 19100,
        # One replica each, but two of jobs: its callers must spread their calls over both.
        "services": {
            "api-gateway": {"http": 18080, "replicas": 1},
            "agent-gateway": {"http": 18081, "replicas": 1},
            "jobs": {"grpc": 15051, "replicas": 2},
            "devices": {"grpc": 15052, "replicas": 1},
            "webhooks": {"grpc": 15053, "replicas": 1},
            "dispatcher": {"replicas": 1},
        },
    }
    running = Cluster(
        render(values, name=RELEASE),
        {
            "printcloud-postgres": {"url": database_url},
            "printcloud-agent-files": {"secret": secrets.token_hex(32)},
            "printcloud-internal-auth": {"secret": secrets.token_urlsafe(48)},
            "printcloud-otlp-headers": {"headers": f"authorization=Bearer {COLLECTOR_TOKEN}"},
            "printcloud-otlp-tls": {"ca.crt": collector_certificate.ca.read_text()},
        },
        tmp_path_factory.mktemp("volumes"),
    )
    logs = tmp_path_factory.mktemp("pods")
    deployments = [pod for d in of_kind(running.manifests, "Deployment") for pod in running.schedule_replicas(d, logs)]
    try:
        with dns_stub(running.dns_names()) as dns_port:
            running.dns_port = dns_port
            # Hooks first, by weight, as Helm runs them before the Deployments.
            hooks = sorted(
                (
                    j
                    for j in of_kind(running.manifests, "Job")
                    if "pre-install" in j["metadata"]["annotations"]["helm.sh/hook"]
                ),
                key=lambda j: int(j["metadata"]["annotations"]["helm.sh/hook-weight"]),
            )
            assert [j["metadata"]["name"] for j in hooks] == [
                f"{RELEASE}-printcloud-create-topics",
                f"{RELEASE}-printcloud-migrate",
            ]
            for job in hooks:
                running.run_to_completion(running.schedule(job, logs))
            for pod in deployments:
                running.start(pod)
            for pod in deployments:
                running.wait_ready(pod)
            yield running
    finally:
        running.stop()


def test_every_service_comes_up_and_helm_test_passes(cluster: Cluster, tmp_path: Path) -> None:
    (test_pod,) = [
        p for p in of_kind(cluster.manifests, "Pod") if p["metadata"]["annotations"]["helm.sh/hook"] == "test"
    ]
    cluster.run_to_completion(cluster.schedule(test_pod, tmp_path))


def test_a_test_job_prints_through_the_rendered_deployments(cluster: Cluster) -> None:
    api_pod = next(p for p in cluster.pods if p.labels["app.kubernetes.io/component"] == "api-gateway")
    (api_container,) = api_pod.spec["containers"]
    env = cluster.environment(api_container, api_pod)

    def admin(*args: str) -> dict[str, Any]:
        # As `kubectl exec` into the api-gateway pod would, with that container's environment.
        done = subprocess.run(
            [str(Path(sys.executable).with_name("printcloud")), "admin", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    org = admin("create-org", "--name", "Chart Check", "--owner-email", "owner@chart.example")
    key = admin("create-key", "--org", org["id"], "--mode", "test", "--scopes", "read,print")["key"]
    base = f"http://{api_pod.address}:{api_pod.port(api_container, 'http')}"
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:

        def online_printer() -> dict[str, Any] | None:
            printers = client.get("/v1/printers").json()["data"]
            return next((p for p in printers if p["state"] == "online"), None)

        printer = eventually(online_printer, timeout=60, what="a virtual printer online")
        created = client.post(
            "/v1/printjobs",
            json={
                "printerId": printer["id"],
                "title": "Chart check",
                "contentType": "pdf_base64",
                "content": PDF_BASE64,
            },
        )
        assert created.status_code == 201, created.text

        def finished() -> dict[str, Any] | None:
            job = client.get(f"/v1/printjobs/{created.json()['id']}").json()
            return job if job["state"] in ("done", "error", "cancelled", "expired") else None

        assert eventually(finished, timeout=60, what="the job to end")["state"] == "done"


def test_callers_spread_their_grpc_calls_over_every_jobs_replica(cluster: Cluster) -> None:
    """The dispatcher (every second) and the gateways call jobs through its headless Service."""
    replicas = [p for p in cluster.pods if p.labels["app.kubernetes.io/component"] == "jobs"]
    assert len(replicas) == 2

    def calls_served(pod: Pod) -> float:
        (container,) = pod.spec["containers"]
        metrics = httpx.get(f"http://{pod.address}:{pod.port(container, 'ops')}/metrics", timeout=5).text
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines()
            if line.startswith("printcloud_grpc_server_handled_total{")
        )

    eventually(lambda: all(calls_served(p) > 0 for p in replicas), timeout=30, what="calls on both jobs replicas")


def test_every_service_exports_to_the_collector_through_the_mounted_ca_with_the_secret_headers(
    cluster: Cluster, collector: OtlpReceiver
) -> None:
    """The chart's OTLP values, as the standard variables: the collector answers HTTPS with a
    certificate of a private CA, which only the file mounted from the Secret lets the exporters trust."""
    services = {p.labels["app.kubernetes.io/component"] for p in cluster.pods if p.processes}

    def exported_by_all() -> set[str] | None:
        names = {service for service, metrics in collector.metric_names.items() if "printcloud_service_info" in metrics}
        return names if services <= names else None

    eventually(exported_by_all, timeout=30, what=f"metrics over OTLP from {sorted(services)}")
    eventually(lambda: collector.spans, timeout=30, what="spans over OTLP")
    assert collector.requests
    assert {headers.get("authorization") for _, headers in collector.requests} == {f"Bearer {COLLECTOR_TOKEN}"}
