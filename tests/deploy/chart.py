"""Renders the Helm chart offline and picks its manifests apart, for the tests of this folder."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import helm_python
import yaml

CHART = Path(__file__).resolve().parents[2] / "deploy" / "helm" / "printcloud"
SERVICES = {"api-gateway", "agent-gateway", "jobs", "devices", "webhooks", "dispatcher", "virtual-fleet"}
NAMESPACE = "printcloud"

Manifest = dict[str, Any]

# What every install must name: the chart refuses to render without them.
REQUIRED = {
    "postgres": {"existingSecret": "printcloud-postgres"},
    "agentFileTokenSecret": {"existingSecret": "agent-files"},
    "internalAuthSecret": {"existingSecret": "internal-auth"},
}
# Where the api-gateway replicas share their rate limits, once there are several.
REDIS = {"redis": {"existingSecret": "printcloud-redis"}}

EVERY_SERVICE_SCALED = {
    name: {"replicas": 3, "autoscaling": {"enabled": True, "minReplicas": 3, "maxReplicas": 12}}
    for name in SERVICES - {"virtual-fleet"}
}

# The containers MANAGED_INFRASTRUCTURE adds (initContainers, extraContainers): the operator's own.
OPERATORS_CONTAINERS = {"cloud-sql-proxy", "log-shipper"}

# A platform team's install on managed infrastructure, with every knob of the pods and the
# connections: TLS to PostgreSQL, Redis, Kafka and the OTLP collector from Secrets, a Vault
# agent's annotations, a database proxy as a native sidecar, a CSI volume, a log shipper sidecar.
MANAGED_INFRASTRUCTURE: dict[str, Any] = {
    **REQUIRED,
    "postgres": {
        "existingSecret": "printcloud-postgres",
        "tls": {"existingSecret": "postgres-tls", "clientCertificate": True},
    },
    "redis": {"existingSecret": "printcloud-redis", "tls": {"existingSecret": "redis-tls", "caKey": "ca.pem"}},
    "kafka": {
        "bootstrapServers": "b-1.kafka.example.net:9096,b-2.kafka.example.net:9096",
        "securityProtocol": "SASL_SSL",
        "sasl": {"mechanism": "SCRAM-SHA-512", "existingSecret": "kafka-login"},
        "tls": {
            "existingSecret": "kafka-tls",
            "clientCertificate": True,
            "certKey": "client.crt",
            "keyKey": "client.key",
        },
        "topicsJob": {"enabled": True},
    },
    "otlp": {
        "enabled": True,
        "endpoint": "https://otel-collector.observability:4318",
        "headers": {"existingSecret": "otlp-headers"},
        "sampler": "parentbased_traceidratio",
        "samplerRatio": 0.25,
        "metrics": False,
        "resourceAttributes": {"deployment.environment": "prod"},
        "tls": {"existingSecret": "otlp-tls"},
    },
    "migrations": {"job": {"enabled": True}},
    "metrics": {
        "podMonitor": {"enabled": True, "labels": {"release": "kube-prometheus"}},
        "prometheusRule": {"enabled": True, "runbookBaseUrl": "https://wiki.example.net/printcloud/runbooks"},
    },
    "podAnnotations": {
        "vault.hashicorp.com/agent-inject": "true",
        "vault.hashicorp.com/role": "printcloud",
    },
    "podLabels": {"team": "platform", "sidecar.istio.io/inject": "true"},
    "priorityClassName": "business-critical",
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "print", "effect": "NoSchedule"}],
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "node.example.net/pool", "operator": "In", "values": ["apps"]}]}
                ]
            }
        }
    },
    "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}
    ],
    "extraVolumes": [
        {
            "name": "corporate-ca",
            "csi": {
                "driver": "secrets-store.csi.k8s.io",
                "readOnly": True,
                "volumeAttributes": {"secretProviderClass": "printcloud-ca"},
            },
        }
    ],
    "extraVolumeMounts": [{"name": "corporate-ca", "mountPath": "/etc/ssl/corporate", "readOnly": True}],
    "initContainers": [
        {
            "name": "cloud-sql-proxy",
            "image": "registry.example.net/cloud-sql-proxy@sha256:" + "cd" * 32,
            "restartPolicy": "Always",
            "args": ["--port=5432", "--private-ip", "project:region:printcloud"],
            "securityContext": {
                "runAsNonRoot": True,
                "allowPrivilegeEscalation": False,
                "readOnlyRootFilesystem": True,
                "capabilities": {"drop": ["ALL"]},
            },
            "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"cpu": "100m", "memory": "128Mi"}},
        }
    ],
    "resources": {
        "requests": {"cpu": "200m", "memory": "384Mi"},
        "limits": {"memory": "1Gi", "ephemeral-storage": "1Gi"},
    },
    "services": {
        "api-gateway": {
            "replicas": 3,
            "podAnnotations": {"vault.hashicorp.com/role": "printcloud-api"},
            "resources": {"limits": {"memory": "2Gi"}},
        },
        "webhooks": {
            "nodeSelector": {"node.example.net/egress": "true"},
            "tolerations": [{"key": "egress", "operator": "Exists", "effect": "NoSchedule"}],
            "priorityClassName": "batch",
            "extraContainers": [
                {
                    "name": "log-shipper",
                    "image": "registry.example.net/log-shipper@sha256:" + "ef" * 32,
                    "securityContext": {
                        "runAsNonRoot": True,
                        "allowPrivilegeEscalation": False,
                        "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]},
                    },
                    "resources": {
                        "requests": {"cpu": "10m", "memory": "32Mi"},
                        "limits": {"cpu": "50m", "memory": "64Mi"},
                    },
                }
            ],
            "topologySpreadConstraints": [
                {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}
            ],
        },
    },
}

# Realistic installs, each a value set the tests render, validate and scan.
VALUE_SETS: dict[str, dict[str, Any]] = {
    "defaults": REQUIRED,
    "managed-infrastructure": MANAGED_INFRASTRUCTURE,
    "external-kafka-tls-sasl": {
        **REQUIRED,
        "kafka": {
            "bootstrapServers": "b-1.kafka.example.net:9096,b-2.kafka.example.net:9096",
            "securityProtocol": "SASL_SSL",
            "sasl": {"mechanism": "SCRAM-SHA-512", "existingSecret": "kafka-login"},
            "tls": {"existingSecret": "kafka-ca"},
            "topicReplicationFactor": 3,
            "topicsJob": {"enabled": True},
        },
        "smtp": {"host": "smtp.example.net", "existingSecret": "smtp-login"},
        "egressAllowlist": "10.20.0.0/16",
    },
    "ingress-tls": {
        **REQUIRED,
        "ingress": {
            "api": {
                "enabled": True,
                "className": "nginx",
                "host": "api.print.example.net",
                "annotations": {"cert-manager.io/cluster-issuer": "letsencrypt"},
            },
            "agents": {"enabled": True, "className": "nginx", "host": "agents.print.example.net"},
        },
        "publicUrl": "https://api.print.example.net",
        "agentGatewayPublicUrl": "https://agents.print.example.net",
    },
    "three-replicas-hpa": {
        **REQUIRED,
        **REDIS,
        "services": {
            **EVERY_SERVICE_SCALED,
            "jobs": {
                **EVERY_SERVICE_SCALED["jobs"],
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "print", "effect": "NoSchedule"}],
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"app.kubernetes.io/component": "jobs"}},
                    }
                ],
            },
        },
    },
    "migrations-job": {**REQUIRED, "migrations": {"job": {"enabled": True}}},
    "everything-on": {
        **REQUIRED,
        "image": {
            "repository": "registry.example.net/printcloud/printcloud",
            "digest": "sha256:" + "ab" * 32,
            "pullSecrets": ["registry-login"],
        },
        "metrics": {
            "podMonitor": {"enabled": True},
            "prometheusRule": {"enabled": True},
            "grafanaDashboard": {"enabled": True},
        },
        "networkPolicy": {"enabled": True},
        "migrations": {"job": {"enabled": True}},
        "kafka": {"topicsJob": {"enabled": True}},
    },
}


def render(values: dict[str, Any], *, name: str = "pc") -> list[Manifest]:
    """The manifests of a release `name` with `values`; each set is rendered once per session."""
    return copy.deepcopy(_rendered(json.dumps(values, sort_keys=True), name))


@functools.cache
def _rendered(values: str, name: str) -> list[Manifest]:
    rendered = helm_python.Chart.load(CHART).render(json.loads(values), name=name, namespace=NAMESPACE)
    return [doc for path, text in rendered.items() if path.endswith(".yaml") for doc in yaml.safe_load_all(text) if doc]


def of_kind(manifests: list[Manifest], kind: str) -> list[Manifest]:
    return [m for m in manifests if m["kind"] == kind]


def component(manifest: Manifest) -> str:
    return str(manifest["metadata"]["labels"]["app.kubernetes.io/component"])


def deployment(manifests: list[Manifest], name: str) -> Manifest:
    return next(m for m in of_kind(manifests, "Deployment") if component(m) == name)


def pod_spec(manifest: Manifest) -> dict[str, Any]:
    return manifest["spec"] if manifest["kind"] == "Pod" else manifest["spec"]["template"]["spec"]


def containers(manifest: Manifest) -> list[dict[str, Any]]:
    spec = pod_spec(manifest)
    return [*spec.get("initContainers", []), *spec["containers"]]


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container.get("env", [])}
