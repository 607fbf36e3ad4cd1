"""Public JSON shapes of the resources, built from the gRPC messages.

The gateway renders responses with these, and services build event `data` with the same
functions, so a webhook's `printjob.*` data is exactly what `GET /v1/printjobs/{id}` returns.
"""

from __future__ import annotations

import json
from typing import Any

from printcloud.v1 import devices_pb2, jobs_pb2


def _optional(message: Any, field: str) -> Any:
    return getattr(message, field) if message.HasField(field) else None


def computer(c: devices_pb2.Computer) -> dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "hostname": c.hostname,
        "os": c.os,
        "osVersion": c.os_version,
        "arch": c.arch,
        "agentVersion": c.agent_version,
        "mode": c.mode,
        "state": c.state,
        "createdAt": c.created_at,
        "lastSeenAt": _optional(c, "last_seen_at"),
    }


def printer(p: devices_pb2.Printer) -> dict[str, Any]:
    return {
        "id": p.id,
        "computerId": p.computer_id,
        "name": p.name,
        "osName": p.os_name,
        "description": p.description,
        "displayName": p.display_name,
        "remarks": _optional(p, "remarks"),
        "enabled": p.enabled,
        "isDefault": p.is_default,
        "state": p.state,
        "stateReasons": list(p.state_reasons),
        "stateDetail": p.state_detail,
        "capabilities": json.loads(p.capabilities_json or "{}"),
        "defaultOptions": json.loads(p.default_options_json or "{}"),
        "customPapers": [{"name": c.name, "width": c.width, "height": c.height} for c in p.custom_papers],
        "createdAt": p.created_at,
        "updatedAt": p.updated_at,
    }


def print_job(j: jobs_pb2.PrintJob) -> dict[str, Any]:
    return {
        "id": j.id,
        "printerId": j.printer_id,
        "computerId": j.computer_id,
        "title": j.title,
        "contentType": j.content_type,
        "source": j.source,
        "qty": j.qty,
        "options": json.loads(j.options_json or "{}"),
        "expireAfter": j.expire_after,
        "expiresAt": j.expires_at,
        "fileSha256": j.file_sha256,
        "fileSize": j.file_size,
        "mode": j.mode,
        "state": j.state,
        "stateMessage": _optional(j, "state_message"),
        "createdAt": j.created_at,
        "sentAt": _optional(j, "sent_at"),
        "receivedAt": _optional(j, "received_at"),
        "printingAt": _optional(j, "printing_at"),
        "finishedAt": _optional(j, "finished_at"),
    }


def job_state_change(c: jobs_pb2.JobStateChange) -> dict[str, Any]:
    return {
        "id": c.id,
        "state": c.state,
        "message": _optional(c, "message"),
        "actor": c.actor,
        "createdAt": c.created_at,
    }
