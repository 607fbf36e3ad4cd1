"""Fitting the chart into a platform team's cluster: pod settings given globally and per service,
TLS material mounted from Secrets where each connection is made, OTLP export as the standard
variables, alerts' runbooks where the operator keeps them, and renamed values refused clearly."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.deploy.chart import (
    CHART,
    MANAGED_INFRASTRUCTURE,
    OPERATORS_CONTAINERS,
    REQUIRED,
    SERVICES,
    VALUE_SETS,
    Manifest,
    component,
    containers,
    deployment,
    env_of,
    of_kind,
    pod_spec,
    render,
)

ALERTS = CHART / "files" / "alerts.yaml"
TLS_ROOT = "/etc/printcloud/tls/"


@pytest.fixture(scope="module")
def managed() -> list[Manifest]:
    return render(MANAGED_INFRASTRUCTURE)


def workloads(manifests: list[Manifest]) -> list[Manifest]:
    return [m for m in manifests if m["kind"] in ("Deployment", "Job", "Pod")]


def pod_metadata(manifest: Manifest) -> dict[str, Any]:
    return manifest["metadata"] if manifest["kind"] == "Pod" else manifest["spec"]["template"]["metadata"]


def printcloud_containers(manifest: Manifest) -> list[dict[str, Any]]:
    return [c for c in containers(manifest) if c["name"] not in OPERATORS_CONTAINERS]


def test_global_pod_settings_reach_every_pod_and_a_service_overrides_or_extends_them(
    managed: list[Manifest],
) -> None:
    for workload in workloads(managed):
        name = component(workload)
        spec, metadata = pod_spec(workload), pod_metadata(workload)
        annotations = metadata["annotations"]
        assert annotations["vault.hashicorp.com/agent-inject"] == "true", name
        assert annotations["vault.hashicorp.com/role"] == ("printcloud-api" if name == "api-gateway" else "printcloud")
        assert metadata["labels"]["team"] == "platform"
        assert metadata["labels"]["app.kubernetes.io/component"] == name, "the chart's labels stay"
        assert spec["priorityClassName"] == ("batch" if name == "webhooks" else "business-critical")
        assert spec["affinity"] == MANAGED_INFRASTRUCTURE["affinity"]
        assert spec["initContainers"][0]["name"] == "cloud-sql-proxy", "the native sidecar starts first"
        assert {"name": "corporate-ca"}.items() <= spec["volumes"][-1].items()
        for container in printcloud_containers(workload):
            assert {"name": "corporate-ca", "mountPath": "/etc/ssl/corporate", "readOnly": True} in container[
                "volumeMounts"
            ]
        sidecars = [c["name"] for c in spec["containers"] if c["name"] in OPERATORS_CONTAINERS]
        assert sidecars == (["log-shipper"] if name == "webhooks" else []), "sidecars only where asked, never in Jobs"

    webhooks = pod_spec(deployment(managed, "webhooks"))
    assert webhooks["nodeSelector"] == {"kubernetes.io/os": "linux", "node.example.net/egress": "true"}
    assert [t["key"] for t in webhooks["tolerations"]] == ["dedicated", "egress"], "the global ones, then its own"


def test_resources_merge_key_by_key_over_the_global_ones(managed: list[Manifest]) -> None:
    def resources(name: str) -> dict[str, Any]:
        resources: dict[str, Any] = printcloud_containers(deployment(managed, name))[0]["resources"]
        return resources

    assert resources("jobs") == {
        "requests": {"cpu": "200m", "memory": "384Mi"},
        "limits": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"},
    }
    assert resources("api-gateway")["limits"] == {"cpu": "1", "memory": "2Gi", "ephemeral-storage": "1Gi"}
    # The dispatcher's own (smaller) defaults win; what it does not set comes from the global ones.
    assert resources("dispatcher") == {
        "requests": {"cpu": "50m", "memory": "128Mi"},
        "limits": {"cpu": "500m", "memory": "512Mi", "ephemeral-storage": "1Gi"},
    }
    migrate = next(m for m in of_kind(managed, "Job") if component(m) == "migrate")
    assert {c["name"]: c["resources"]["limits"]["memory"] for c in printcloud_containers(migrate)} == {
        "migrate-api-gateway": "2Gi",
        "migrate-jobs": "1Gi",
        "migrate-devices": "1Gi",
        "migrate-webhooks": "1Gi",
    }


def test_spread_constraints_select_their_own_service_unless_they_say_otherwise(managed: list[Manifest]) -> None:
    for name in SERVICES - {"webhooks"}:
        (constraint,) = pod_spec(deployment(managed, name))["topologySpreadConstraints"]
        assert constraint["topologyKey"] == "topology.kubernetes.io/zone"
        assert constraint["labelSelector"]["matchLabels"]["app.kubernetes.io/component"] == name
    (own,) = pod_spec(deployment(managed, "webhooks"))["topologySpreadConstraints"]
    assert (own["topologyKey"], own["maxSkew"]) == ("kubernetes.io/hostname", 2), "the service's replace the global"
    assert not any("topologySpreadConstraints" in pod_spec(m) for m in of_kind(managed, "Job"))


@pytest.mark.parametrize("value_set", sorted(VALUE_SETS))
def test_every_file_a_container_is_told_to_read_is_mounted_read_only_from_a_secret(value_set: str) -> None:
    mounted_files = 0
    for workload in workloads(render(VALUE_SETS[value_set])):
        volumes = {v["name"]: v for v in pod_spec(workload).get("volumes", [])}
        for container in printcloud_containers(workload):
            mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
            for variable, entry in env_of(container).items():
                value = entry.get("value", "")
                if not value.startswith(TLS_ROOT):
                    continue
                directory, _, file = value.rpartition("/")
                where = f"{workload['metadata']['name']}/{container['name']}: {variable}={value}"
                assert directory in mounts and mounts[directory]["readOnly"] is True, where
                secret = volumes[mounts[directory]["name"]]["secret"]
                assert file in {item["path"] for item in secret["items"]}, where
                assert secret["defaultMode"] == 0o440, "root and the pods' group read, nobody else"
                mounted_files += 1
    if value_set in ("managed-infrastructure", "external-kafka-tls-sasl"):
        assert mounted_files > 0


def test_each_tls_secret_is_mounted_where_its_connection_is_made_and_nowhere_else(managed: list[Manifest]) -> None:
    def mounted(container: dict[str, Any]) -> set[str]:
        return {
            m["mountPath"].removeprefix(TLS_ROOT)
            for m in container["volumeMounts"]
            if m["mountPath"].startswith(TLS_ROOT)
        }

    expected = {
        "api-gateway": {"postgresql", "redis", "kafka", "otlp"},
        "agent-gateway": {"kafka", "otlp"},
        "jobs": {"postgresql", "kafka", "otlp"},
        "devices": {"postgresql", "kafka", "otlp"},
        "webhooks": {"postgresql", "kafka", "otlp"},
        "dispatcher": {"otlp"},
        "virtual-fleet": {"otlp"},
    }
    for name, connections in expected.items():
        workload = deployment(managed, name)
        assert mounted(printcloud_containers(workload)[0]) == connections, name
    jobs = {component(m): m for m in of_kind(managed, "Job")}
    # Each service migrates with its own settings, whose checks read the Kafka CA too.
    for container in printcloud_containers(jobs["migrate"]):
        service = container["name"].removeprefix("migrate-")
        assert mounted(container) == expected[service], container["name"]
    assert mounted(printcloud_containers(jobs["create-topics"])[0]) == {"kafka"}

    kafka = next(v for v in pod_spec(deployment(managed, "jobs"))["volumes"] if v["name"] == "tls-kafka")
    assert kafka["secret"]["secretName"] == "kafka-tls"
    assert kafka["secret"]["items"] == [
        {"key": "ca.crt", "path": "ca.crt"},
        {"key": "client.crt", "path": "tls.crt"},
        {"key": "client.key", "path": "tls.key"},
    ]
    redis = next(v for v in pod_spec(deployment(managed, "api-gateway"))["volumes"] if v["name"] == "tls-redis")
    assert redis["secret"]["items"] == [{"key": "ca.pem", "path": "ca.crt"}], "no client certificate asked for"
    env = env_of(printcloud_containers(deployment(managed, "jobs"))[0])
    assert env["PRINTCLOUD_KAFKA_SSL_CERTFILE"]["value"] == "/etc/printcloud/tls/kafka/tls.crt"
    assert env["PRINTCLOUD_KAFKA_SSL_KEYFILE"]["value"] == "/etc/printcloud/tls/kafka/tls.key"


def test_a_single_api_gateway_mounts_no_redis_material_it_would_not_use() -> None:
    values = {**REQUIRED, "redis": {"tls": {"existingSecret": "redis-tls"}}}
    gateway = deployment(render(values), "api-gateway")
    assert not [v for v in pod_spec(gateway)["volumes"] if v["name"] == "tls-redis"]


def test_otlp_values_become_the_standard_variables_of_every_service(managed: list[Manifest]) -> None:
    for name in SERVICES:
        env = env_of(printcloud_containers(deployment(managed, name))[0])
        values = {k: v.get("value") for k, v in env.items() if k.startswith("OTEL_") or k == "PRINTCLOUD_OTEL_EXPORTER"}
        assert values == {
            "PRINTCLOUD_OTEL_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel-collector.observability:4318",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_HEADERS": None,
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.25",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_RESOURCE_ATTRIBUTES": "k8s.namespace.name=printcloud,deployment.environment=prod",
            "OTEL_EXPORTER_OTLP_CERTIFICATE": "/etc/printcloud/tls/otlp/ca.crt",
        }, name
        assert env["OTEL_EXPORTER_OTLP_HEADERS"]["valueFrom"] == {
            "secretKeyRef": {"name": "otlp-headers", "key": "headers"}
        }
    defaults = render(REQUIRED)
    assert not any(
        name.startswith("OTEL_") for w in of_kind(defaults, "Deployment") for name in env_of(containers(w)[0])
    ), "off unless asked for"
    with pytest.raises(Exception, match=r"otlp\.endpoint is required with otlp\.enabled"):
        render({**REQUIRED, "otlp": {"enabled": True}})


def test_every_alert_links_its_runbook_section_under_the_configured_base(managed: list[Manifest]) -> None:
    shipped = yaml.safe_load(ALERTS.read_text())
    (rule,) = of_kind(managed, "PrometheusRule")
    rendered = rule["spec"]
    alerts = [r for group in rendered["groups"] for r in group["rules"]]
    assert len(alerts) == sum(len(group["rules"]) for group in shipped["groups"])
    for alert, original in zip(alerts, (r for g in shipped["groups"] for r in g["rules"]), strict=True):
        assert alert["annotations"]["runbook_url"] == (
            f"https://wiki.example.net/printcloud/runbooks#{alert['alert'].lower()}"
        )
        assert alert["expr"] == original["expr"]
        assert alert["annotations"]["summary"] == original["annotations"]["summary"], "alert templates kept as is"

    (default,) = of_kind(render({**REQUIRED, "metrics": {"prometheusRule": {"enabled": True}}}), "PrometheusRule")
    version = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]
    expected = "main" if "-" in version else f"v{version}"
    url = default["spec"]["groups"][0]["rules"][0]["annotations"]["runbook_url"]
    assert url == f"https://github.com/printcloud/printcloud/blob/{expected}/docs/runbooks.md#printcloudserviceabsent"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"metrics": {"serviceMonitor": {"enabled": True}}}, r"metrics\.serviceMonitor is now metrics\.podMonitor"),
        ({"kafka": {"tls": {"caSecret": "kafka-ca"}}}, r"kafka\.tls\.caSecret is now kafka\.tls\.existingSecret"),
    ],
)
def test_renamed_values_are_refused_with_their_new_name(values: dict[str, Any], message: str) -> None:
    with pytest.raises(Exception, match=message):
        render({**REQUIRED, **values})


@pytest.mark.parametrize(
    "values",
    [
        {"podLabels": {"app.kubernetes.io/component": "other"}},
        {"services": {"jobs": {"podLabels": {"app.kubernetes.io/instance": "other"}}}},
        {"extraContainers": [{"name": "no-image"}]},
        {"services": {"webhooks": {"initContainers": [{"image": "no-name"}]}}},
        {"extraVolumeMounts": [{"name": "relative", "mountPath": "etc/ssl"}]},
        {"services": {"jobs": {"http": 8080}}},
        {"services": {"api-gateway": {"grpc": 50050}}},
        {"services": {"virtual-fleet": {"podDisruptionBudget": {"enabled": True}}}},
        {"postgres": {"tls": {"existingSecret": "Not_A_Name"}}},
        {"redis": {"tls": {"ca": "x"}}},
        {"otlp": {"protocol": "http/json"}},
        {"otlp": {"samplerRatio": 2}},
        {"otlp": {"resourceAttributes": {"team": "a,b"}}},
        {"metrics": {"prometheusRule": {"runbookBaseUrl": "wiki/runbooks"}}},
        {"resources": {"limits": {"memory": "lots"}}},
    ],
)
def test_schema_refuses_mistyped_pod_and_connection_values(values: dict[str, Any]) -> None:
    with pytest.raises(Exception, match="schema"):
        render({**REQUIRED, **values})


def test_the_chart_readme_and_values_name_the_same_mount_paths() -> None:
    readme = (CHART / "README.md").read_text()
    for connection in ("postgresql", "redis", "kafka", "otlp"):
        assert f"{TLS_ROOT}{connection}/" in readme, connection
