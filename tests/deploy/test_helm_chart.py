"""The chart's structure: lint, names, scaling, rollout, security context and the schema's refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import helm_python
import pytest
import yaml

from tests.deploy.chart import (
    CHART,
    EVERY_SERVICE_SCALED,
    OPERATORS_CONTAINERS,
    REDIS,
    REQUIRED,
    SERVICES,
    VALUE_SETS,
    component,
    containers,
    deployment,
    env_of,
    of_kind,
    pod_spec,
    render,
)


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    return render(REQUIRED)


def test_chart_lints_strict_without_errors() -> None:
    result = helm_python.lint(CHART, strict=True)
    assert result["errors"] == []
    assert [m for m in result["messages"] if m["severity"] > 1] == []


def test_every_service_is_its_own_deployment(manifests: list[dict[str, Any]]) -> None:
    assert {component(m) for m in of_kind(manifests, "Deployment")} == SERVICES


def test_grpc_targets_are_every_replica_of_a_headless_service(manifests: list[dict[str, Any]]) -> None:
    services = {m["metadata"]["name"]: m for m in of_kind(manifests, "Service")}
    env = env_of(containers(deployment(manifests, "api-gateway"))[0])
    for variable in (
        "PRINTCLOUD_JOBS_GRPC_TARGET",
        "PRINTCLOUD_DEVICES_GRPC_TARGET",
        "PRINTCLOUD_WEBHOOKS_GRPC_TARGET",
    ):
        target = env[variable]["value"]
        assert target.startswith("dns:///"), variable
        host, port = target.removeprefix("dns:///").split(":")
        name, namespace, *_ = host.split(".")
        assert namespace == "printcloud"
        assert services[name]["spec"]["clusterIP"] == "None", f"{name} must be headless"
        grpc_port = next(p for p in services[name]["spec"]["ports"] if p["name"] == "grpc")
        assert grpc_port["port"] == int(port), variable


def test_virtual_fleet_never_runs_twice() -> None:
    fleet = deployment(render(VALUE_SETS["three-replicas-hpa"]), "virtual-fleet")
    assert fleet["spec"]["replicas"] == 1
    assert fleet["spec"]["strategy"] == {"type": "Recreate"}
    for refused in ({"replicas": 2}, {"autoscaling": {"enabled": True}}):
        with pytest.raises(Exception, match="virtual-fleet"):
            render({**REQUIRED, "services": {"virtual-fleet": refused}})


def test_autoscaled_services_leave_replicas_to_the_autoscaler() -> None:
    manifests = render(VALUE_SETS["three-replicas-hpa"])
    scaled = {m["spec"]["scaleTargetRef"]["name"]: m for m in of_kind(manifests, "HorizontalPodAutoscaler")}
    for name in EVERY_SERVICE_SCALED:
        target = deployment(manifests, name)
        assert "replicas" not in target["spec"], name
        assert scaled[target["metadata"]["name"]]["spec"]["minReplicas"] == 3
    budgets = {component(m) for m in of_kind(manifests, "PodDisruptionBudget")}
    assert budgets == SERVICES - {"virtual-fleet"}


@pytest.mark.parametrize(
    "values",
    [
        {"bogus": 1},
        {"services": {"jobs": {"replicas": "3"}}},
        {"services": {"jobs": {"replica": 3}}},
        {"services": {"printer": {"replicas": 1}}},
        {"kafka": {"securityProtocol": "TLS"}},
        {"image": {"digest": "latest"}},
        {"services": {"webhooks": {"env": {"SMTP_HOST": "x"}}}},
        {"extraEnv": [{"name": "PRINTCLOUD_LOG_LEVEL", "value": "DEBUG"}]},
    ],
)
def test_schema_refuses_unknown_and_mistyped_values(values: dict[str, Any]) -> None:
    with pytest.raises(Exception, match="schema"):
        render({**REQUIRED, **values})


def test_long_release_names_keep_every_name_within_63_characters() -> None:
    release = "a-release-name-of-sixty-characters-for-a-platform-team-12345"
    assert len(release) == 60
    manifests = render(VALUE_SETS["everything-on"] | VALUE_SETS["ingress-tls"], name=release)
    names = [m["metadata"]["name"] for m in manifests]
    by_kind = [(m["kind"], m["metadata"]["name"]) for m in manifests]
    assert len(by_kind) == len(set(by_kind)), "names stay distinct once cut"
    other = render(REQUIRED, name=release[:-1] + "6")
    assert not {m["metadata"]["name"] for m in other} & set(names), "two long releases share no name"
    for manifest in manifests:
        assert len(manifest["metadata"]["name"]) <= 63, manifest["metadata"]["name"]
        for value in manifest["metadata"].get("labels", {}).values():
            assert len(value) <= 63
    for target in ("PRINTCLOUD_JOBS_GRPC_TARGET", "PRINTCLOUD_AGENT_GATEWAY_URL"):
        for workload in of_kind(manifests, "Deployment"):
            value = env_of(containers(workload)[0]).get(target, {}).get("value")
            if value:
                host = value.split("/")[-1].split(":")[0].split(".")[0]
                assert host in names, target


@pytest.mark.parametrize("value_set", sorted(VALUE_SETS))
def test_every_pod_meets_the_restricted_pod_security_standard(value_set: str) -> None:
    for manifest in render(VALUE_SETS[value_set]):
        if manifest["kind"] not in ("Deployment", "Job", "Pod"):
            continue
        spec = pod_spec(manifest)
        assert spec["automountServiceAccountToken"] is False
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in containers(manifest):
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"] == {"drop": ["ALL"]}
            assert context["runAsNonRoot"] is True
            assert container["resources"]["limits"]["memory"]
            if container["name"] in OPERATORS_CONTAINERS:
                continue  # the operator's own sidecars: the standard's rules above, the rest theirs
            assert context["readOnlyRootFilesystem"] is True
            assert any(m["mountPath"] == "/tmp" for m in container["volumeMounts"]), "/tmp is writable"


def test_pods_take_image_digest_and_pull_secrets() -> None:
    manifests = render(VALUE_SETS["everything-on"])
    for workload in of_kind(manifests, "Deployment"):
        assert pod_spec(workload)["imagePullSecrets"] == [{"name": "registry-login"}]
        assert containers(workload)[0]["image"] == "registry.example.net/printcloud/printcloud@sha256:" + "ab" * 32


def test_grace_period_and_pre_stop_are_configurable() -> None:
    manifests = render({**REQUIRED, "terminationGracePeriodSeconds": 90, "preStopSleepSeconds": 15})
    for workload in of_kind(manifests, "Deployment"):
        assert pod_spec(workload)["terminationGracePeriodSeconds"] == 90
        assert containers(workload)[0]["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "15"]


def test_agents_ingress_outlasts_the_agent_heartbeat() -> None:
    from printcloud.agent_gateway.settings import Settings

    ingresses = {component(m): m for m in of_kind(render(VALUE_SETS["ingress-tls"]), "Ingress")}
    agents = ingresses["agent-gateway"]
    heartbeat = Settings.model_fields["heartbeat_seconds"].default
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(agents["metadata"]["annotations"][f"nginx.ingress.kubernetes.io/{timeout}"]) > 2 * heartbeat
    for ingress in ingresses.values():
        assert ingress["spec"]["tls"][0]["hosts"] == [ingress["spec"]["rules"][0]["host"]]
        assert ingress["spec"]["ingressClassName"] == "nginx"


def test_migrations_job_runs_before_the_services_which_then_skip_them() -> None:
    manifests = render(VALUE_SETS["migrations-job"])
    job = next(m for m in of_kind(manifests, "Job") if component(m) == "migrate")
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    migrated = {c["command"][2] for c in containers(job)}
    assert migrated == {"printcloud.api_gateway", "printcloud.jobs", "printcloud.devices", "printcloud.webhooks"}
    assert all(c["command"][3:] == ["migrate"] for c in containers(job))
    for workload in of_kind(manifests, "Deployment"):
        env = env_of(containers(workload)[0])
        if "PRINTCLOUD_DATABASE_URL" in env:
            assert env["PRINTCLOUD_MIGRATE_ON_START"]["value"] == "false", component(workload)
    defaults = render(REQUIRED)
    assert not of_kind(defaults, "Job")
    assert all("PRINTCLOUD_MIGRATE_ON_START" not in env_of(containers(w)[0]) for w in of_kind(defaults, "Deployment"))


def test_kafka_tls_and_sasl_reach_every_kafka_client() -> None:
    manifests = render(VALUE_SETS["external-kafka-tls-sasl"])
    clients = [
        c
        for m in manifests
        if m["kind"] in ("Deployment", "Job")
        for c in containers(m)
        if "PRINTCLOUD_KAFKA_BOOTSTRAP_SERVERS" in env_of(c)
    ]
    assert len(clients) == 6  # api-gateway, agent-gateway, jobs, devices, webhooks, create-topics
    for container in clients:
        env = env_of(container)
        assert env["PRINTCLOUD_KAFKA_SECURITY_PROTOCOL"]["value"] == "SASL_SSL"
        assert env["PRINTCLOUD_KAFKA_SASL_MECHANISM"]["value"] == "SCRAM-SHA-512"
        assert env["PRINTCLOUD_KAFKA_SASL_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"] == "kafka-login"
        assert env["PRINTCLOUD_KAFKA_TOPIC_REPLICATION_FACTOR"]["value"] == "3"
        assert env["PRINTCLOUD_KAFKA_SSL_CAFILE"]["value"] == "/etc/printcloud/tls/kafka/ca.crt"
        mount = next(m for m in container["volumeMounts"] if m["name"] == "tls-kafka")
        assert mount == {"name": "tls-kafka", "mountPath": "/etc/printcloud/tls/kafka", "readOnly": True}
    topics = next(m for m in of_kind(manifests, "Job") if component(m) == "create-topics")
    assert containers(topics)[0]["command"] == ["python", "-m", "printcloud.core.commands.create_topics"]


def test_jobs_alone_is_told_where_to_create_jobs_and_it_is_domain_events_by_default(
    manifests: list[dict[str, Any]],
) -> None:
    def told(rendered: list[dict[str, Any]]) -> dict[str, str]:
        return {
            component(workload): env["PRINTCLOUD_CREATE_JOBS_ON_JOB_EVENTS_TOPIC"]["value"]
            for workload in of_kind(rendered, "Deployment")
            if "PRINTCLOUD_CREATE_JOBS_ON_JOB_EVENTS_TOPIC" in (env := env_of(containers(workload)[0]))
        }

    assert told(manifests) == {"jobs": "false"}
    turned_on = render(REQUIRED | {"kafka": REQUIRED.get("kafka", {}) | {"createJobsOnJobEventsTopic": True}})
    assert told(turned_on) == {"jobs": "true"}


def test_monitoring_resources_ship_the_rules_and_the_dashboard() -> None:
    manifests = render(VALUE_SETS["everything-on"])
    monitor = of_kind(manifests, "PodMonitor")[0]
    assert monitor["spec"]["podMetricsEndpoints"][0] | {"interval": None} == {
        "port": "ops",
        "path": "/metrics",
        "interval": None,
    }
    rule = of_kind(manifests, "PrometheusRule")[0]
    assert "groups" in rule["spec"]
    dashboard = next(m for m in of_kind(manifests, "ConfigMap") if m["metadata"]["labels"].get("grafana_dashboard"))
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert not {"PodMonitor", "PrometheusRule"} & {m["kind"] for m in render(REQUIRED)}


def test_helm_test_checks_every_service_and_an_anonymous_call(manifests: list[dict[str, Any]]) -> None:
    pod = next(m for m in of_kind(manifests, "Pod") if m["metadata"]["annotations"]["helm.sh/hook"] == "test")
    args = containers(pod)[0]["args"]
    ready = {args[i + 1].split(":")[0] for i, a in enumerate(args) if a == "--ready"}
    assert ready == {m["metadata"]["name"] for m in of_kind(manifests, "Service")}
    expected = args.index("--expect-status")
    assert args[expected + 1] == "401" and args[expected + 2].endswith("/v1/whoami")


def test_the_readme_describes_every_value() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    readme = (CHART / "README.md").read_text()
    whole = {"podSecurityContext", "containerSecurityContext", "resources", "annotations", "labels"}

    def leaves(tree: dict[str, Any], prefix: str = "") -> Iterator[str]:
        for key, value in tree.items():
            if isinstance(value, dict) and value and key not in whole:
                yield from leaves(value, f"{prefix}{key}.")
            else:
                yield prefix + key

    documented = set()
    for path in leaves({k: v for k, v in values.items() if k != "services"}):
        documented.add(path)
        assert f"| `{path}` |" in readme, path
    for service in values["services"].values():
        for path in leaves(service):
            assert f"| `{path}` |" in readme, path
    assert len(documented) > 50
    # Every value a service may take, most of them unset in values.yaml: in the per-service table.
    per_service = readme[readme.index("Per service, under `services.<name>`") :]
    schema = json.loads((CHART / "values.schema.json").read_text())
    for name in schema["definitions"]["service"]["properties"]:
        assert f"`{name}`" in per_service or f"`{name}." in per_service, name


def test_extra_environment_reaches_every_service_container() -> None:
    otel = [
        {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"},
        {"name": "OTEL_EXPORTER_OTLP_HEADERS", "valueFrom": {"secretKeyRef": {"name": "otlp", "key": "headers"}}},
    ]
    manifests = render({**REQUIRED, "extraEnv": otel})
    for workload in of_kind(manifests, "Deployment"):
        env = env_of(containers(workload)[0])
        assert [env[o["name"]] for o in otel] == otel, component(workload)


def test_the_default_install_denies_every_connection_but_the_right_callers(manifests: list[dict[str, Any]]) -> None:
    policies = of_kind(manifests, "NetworkPolicy")
    label = "app.kubernetes.io/component"
    assert {component(p) for p in policies if label in p["metadata"]["labels"]} == SERVICES
    deny = [p for p in policies if label not in p["metadata"]["labels"]]
    assert len(deny) == 1 and deny[0]["spec"]["policyTypes"] == ["Ingress"] and "ingress" not in deny[0]["spec"]


def test_the_api_gateway_alone_takes_the_redis_url_from_a_secret() -> None:
    manifests = render(VALUE_SETS["three-replicas-hpa"])
    gateway = env_of(containers(deployment(manifests, "api-gateway"))[0])
    assert gateway["PRINTCLOUD_REDIS_URL"]["valueFrom"]["secretKeyRef"] == {"name": "printcloud-redis", "key": "url"}
    for name in SERVICES - {"api-gateway"}:
        assert "PRINTCLOUD_REDIS_URL" not in env_of(containers(deployment(manifests, name))[0]), name


def test_the_defaults_run_one_api_gateway_with_its_limits_in_the_process(manifests: list[dict[str, Any]]) -> None:
    gateway = deployment(manifests, "api-gateway")
    assert gateway["spec"]["replicas"] == 1
    assert "PRINTCLOUD_REDIS_URL" not in env_of(containers(gateway)[0])


@pytest.mark.parametrize(
    "gateway",
    [{"replicas": 2}, {"replicas": 1, "autoscaling": {"enabled": True}}],
    ids=["two-replicas", "autoscaled"],
)
def test_redis_is_required_once_the_api_gateway_may_run_more_than_one_replica(gateway: dict[str, Any]) -> None:
    with pytest.raises(Exception, match=r"redis\.existingSecret is required when the api-gateway runs more than one"):
        render({**REQUIRED, "services": {"api-gateway": gateway}})
    scaled = deployment(render({**REQUIRED, **REDIS, "services": {"api-gateway": gateway}}), "api-gateway")
    assert env_of(containers(scaled)[0])["PRINTCLOUD_REDIS_URL"]["valueFrom"]["secretKeyRef"]["name"] == (
        "printcloud-redis"
    )
