"""Every realistic value set renders manifests that Kubernetes accepts (strict schemas of the
oldest and newest versions the chart supports) and that only the right callers may reach."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import kubernetes_validate
import kubernetes_validate.utils
import pytest

from tests.deploy.chart import VALUE_SETS, component, containers, env_of, of_kind, render

# The oldest Kubernetes still supported upstream when the chart was written, and the newest.
KUBERNETES_VERSIONS = ("1.31.0", "1.37.0")
# Prometheus Operator's kinds: no Kubernetes schema; their shape is tested in test_helm_chart.
CUSTOM_KINDS = {"PodMonitor", "PrometheusRule"}


@pytest.fixture(scope="module")
def schemas_read_once() -> Iterator[None]:
    """kubernetes-validate reads its (large) schema files for every manifest; they never change."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            kubernetes_validate.utils, "schema_contents", functools.cache(kubernetes_validate.utils.schema_contents)
        )
        yield


@pytest.mark.usefixtures("schemas_read_once")
@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("value_set", sorted(VALUE_SETS))
def test_manifests_match_kubernetes_schemas(value_set: str, version: str) -> None:
    manifests = render(VALUE_SETS[value_set])
    for manifest in manifests:
        if manifest["kind"] in CUSTOM_KINDS:
            assert manifest["apiVersion"] == "monitoring.coreos.com/v1"
            continue
        kubernetes_validate.validate(manifest, version, strict=True)
    assert len(of_kind(manifests, "Deployment")) == 7


def test_network_policies_admit_every_call_the_chart_wires_and_nothing_else() -> None:
    manifests = render(VALUE_SETS["everything-on"])
    policies = {component(p): p for p in of_kind(manifests, "NetworkPolicy") if "ingress" in p["spec"]}
    deny = next(p for p in of_kind(manifests, "NetworkPolicy") if "ingress" not in p["spec"])
    assert deny["spec"]["podSelector"]["matchLabels"] == {
        "app.kubernetes.io/name": "printcloud",
        "app.kubernetes.io/instance": "pc",
    }
    admitted: set[tuple[str, str]] = set()
    for target, policy in policies.items():
        for rule in policy["spec"]["ingress"]:
            if rule["ports"][0]["port"] == "grpc":
                admitted |= {
                    (p["podSelector"]["matchLabels"]["app.kubernetes.io/component"], target) for p in rule["from"]
                }
    wired = set()
    for workload in of_kind(manifests, "Deployment"):
        for name in env_of(containers(workload)[0]):
            if name.endswith("_GRPC_TARGET"):
                wired.add((component(workload), name.removeprefix("PRINTCLOUD_").removesuffix("_GRPC_TARGET").lower()))
    assert admitted == wired
    fleet_to_agents = policies["agent-gateway"]["spec"]["ingress"][1]["from"]
    assert {"app.kubernetes.io/component": "virtual-fleet"}.items() <= fleet_to_agents[1]["podSelector"][
        "matchLabels"
    ].items()


def test_every_grpc_call_the_chart_wires_is_one_the_callee_accepts() -> None:
    from printcloud.core.rpc.service_auth import ALLOWED_CALLERS

    accepted = {
        (caller, service.removeprefix("printcloud.v1.").lower())
        for service, callers in ALLOWED_CALLERS.items()
        for caller in callers
    }
    wired = set()
    for workload in of_kind(render(VALUE_SETS["defaults"]), "Deployment"):
        for name in env_of(containers(workload)[0]):
            if name.endswith("_GRPC_TARGET"):
                wired.add((component(workload), name.removeprefix("PRINTCLOUD_").removesuffix("_GRPC_TARGET").lower()))
    assert wired == accepted
