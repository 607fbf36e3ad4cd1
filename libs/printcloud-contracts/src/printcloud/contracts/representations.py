"""Public JSON shapes of the resources, rendered from the gRPC messages by their models.

The gateway renders responses with these, and services build event `data` with the same
functions, so a webhook's `printjob.*` data is exactly what `GET /v1/printjobs/{id}` returns.
The hottest reads are rendered by the service that owns them, to the bytes the gateway sends
(`as_json`, carried by a `Representation` message).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from printcloud.contracts.pairing import PAIRING_CODE_DERIVED, PairingCode, PairingCodeEnrollment
from printcloud.contracts.rendering import renderer
from printcloud.contracts.resources import Computer, JobStateChange, Page, Printer, PrintJob
from printcloud.contracts.webhooks import CreatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint
from printcloud.v1 import common_pb2, devices_pb2, jobs_pb2, webhooks_pb2

computer = renderer(Computer, devices_pb2.Computer)
printer = renderer(Printer, devices_pb2.Printer)
print_job = renderer(PrintJob, jobs_pb2.PrintJob)
job_state_change = renderer(JobStateChange, jobs_pb2.JobStateChange)
pairing_code = renderer(PairingCode, devices_pb2.PairingCode, PAIRING_CODE_DERIVED)
pairing_code_enrollment = renderer(PairingCodeEnrollment, devices_pb2.PairingCodeEnrollment)
webhook_endpoint = renderer(WebhookEndpoint, webhooks_pb2.WebhookEndpoint)
created_webhook_endpoint = renderer(CreatedWebhookEndpoint, webhooks_pb2.WebhookEndpoint)
webhook_delivery = renderer(WebhookDelivery, webhooks_pb2.WebhookDelivery)

Item = TypeVar("Item")
# A page's items are not in its PageInfo: their list is put in the place the model gives `data`.
_page_info = renderer(Page, common_pb2.PageInfo, {"data": lambda _: None})


def page(items: Iterable[Item], info: common_pb2.PageInfo, render: Callable[[Item], dict[str, Any]]) -> dict[str, Any]:
    """A list answer: the rendered items and what the page says of the next one."""
    shown = _page_info(info)
    shown["data"] = [render(item) for item in items]
    return shown


def as_json(shown: dict[str, Any]) -> bytes:
    """A representation as the gateway sends it: the bytes Starlette's `JSONResponse` writes for it,
    so that an answer rendered by a service and one rendered by the gateway cannot differ."""
    return json.dumps(shown, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


def representation(shown: dict[str, Any]) -> common_pb2.Representation:
    """The message that carries a representation to the gateway, rendered once where it is read."""
    return common_pb2.Representation(json=as_json(shown))
