"""The Helm chart lints, renders every service as its own Deployment, and matches Kubernetes schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import helm_python
import kubernetes_validate
import pytest
import yaml

CHART = Path(__file__).resolve().parents[2] / "deploy" / "helm" / "printcloud"
SERVICES = {"api-gateway", "agent-gateway", "jobs", "devices", "webhooks", "dispatcher", "virtual-fleet"}


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    rendered = helm_python.Chart.load(CHART).render({}, name="pc", namespace="printcloud")
    return [doc for text in rendered.values() for doc in yaml.safe_load_all(text) if doc]


def test_chart_lints_without_errors() -> None:
    assert helm_python.lint(CHART, strict=True)["errors"] == []


def test_every_service_is_its_own_deployment(manifests: list[dict[str, Any]]) -> None:
    components = {
        m["metadata"]["labels"]["app.kubernetes.io/component"] for m in manifests if m["kind"] == "Deployment"
    }
    assert components == SERVICES


def test_manifests_match_kubernetes_schemas(manifests: list[dict[str, Any]]) -> None:
    for manifest in manifests:
        kubernetes_validate.validate(manifest, kubernetes_validate.latest_version(), strict=True)


def test_grpc_targets_point_at_rendered_services(manifests: list[dict[str, Any]]) -> None:
    services = {m["metadata"]["name"]: m for m in manifests if m["kind"] == "Service"}
    deployment = next(m for m in manifests if m["kind"] == "Deployment")
    env = {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    for variable in (
        "PRINTCLOUD_JOBS_GRPC_TARGET",
        "PRINTCLOUD_DEVICES_GRPC_TARGET",
        "PRINTCLOUD_WEBHOOKS_GRPC_TARGET",
    ):
        host, port = env[variable].split(":")
        assert host in services, variable
        assert int(port) in {p["port"] for p in services[host]["spec"]["ports"]}, variable


def _env_of(manifests: list[dict[str, Any]], component: str) -> dict[str, dict[str, Any]]:
    deployment = next(
        m
        for m in manifests
        if m["kind"] == "Deployment" and m["metadata"]["labels"]["app.kubernetes.io/component"] == component
    )
    return {e["name"]: e for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}


def _render(values: dict[str, Any]) -> list[dict[str, Any]]:
    rendered = helm_python.Chart.load(CHART).render(values, name="pc", namespace="printcloud")
    return [doc for text in rendered.values() for doc in yaml.safe_load_all(text) if doc]


def test_smtp_login_comes_from_a_secret_and_only_when_one_is_named(manifests: list[dict[str, Any]]) -> None:
    assert "PRINTCLOUD_SMTP_PASSWORD" not in _env_of(manifests, "webhooks")
    env = _env_of(_render({"smtp": {"existingSecret": "mail-login"}}), "webhooks")
    assert env["PRINTCLOUD_SMTP_USERNAME"]["valueFrom"]["secretKeyRef"] == {"name": "mail-login", "key": "username"}
    assert env["PRINTCLOUD_SMTP_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "mail-login", "key": "password"}
    assert env["PRINTCLOUD_SMTP_STARTTLS"]["value"] == "true"


def test_a_service_takes_settings_of_its_own() -> None:
    manifests = _render({"services": {"webhooks": {"env": {"PRINTCLOUD_FAILING_ENDPOINTS_CONCURRENCY": 50}}}})
    webhooks = _env_of(manifests, "webhooks")
    assert webhooks["PRINTCLOUD_FAILING_ENDPOINTS_CONCURRENCY"]["value"] == "50"
    assert webhooks["PRINTCLOUD_GRPC_LISTEN"]["value"] == "0.0.0.0:50053", "the service keeps the rest of its values"
    assert "PRINTCLOUD_FAILING_ENDPOINTS_CONCURRENCY" not in _env_of(manifests, "jobs")
    assert {m["metadata"]["labels"]["app.kubernetes.io/component"] for m in manifests if m["kind"] == "Deployment"} == (
        SERVICES
    )
    for manifest in manifests:
        kubernetes_validate.validate(manifest, kubernetes_validate.latest_version(), strict=True)


def test_the_api_gateway_alone_takes_the_redis_url_from_a_secret(manifests: list[dict[str, Any]]) -> None:
    assert _env_of(manifests, "api-gateway")["PRINTCLOUD_REDIS_URL"]["valueFrom"]["secretKeyRef"] == {
        "name": "printcloud-redis",
        "key": "url",
    }
    assert "PRINTCLOUD_REDIS_URL" not in _env_of(manifests, "jobs")


def test_redis_is_required_only_for_more_than_one_api_gateway_replica() -> None:
    single = {"redis": {"existingSecret": ""}, "services": {"api-gateway": {"replicas": 1}}}
    assert "PRINTCLOUD_REDIS_URL" not in _env_of(_render(single), "api-gateway")
    with pytest.raises(Exception, match=r"redis\.existingSecret is required"):
        _render({"redis": {"existingSecret": ""}})
