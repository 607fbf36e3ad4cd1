"""What the services render is exactly the contract models (printcloud.contracts), on real data.

The routes render JSON with `printcloud.contracts.representations` and their own mapping; the document
is generated from the models. Each rendered object must validate against its model (no field the
model lacks: `extra="forbid"`; no required field missing) and, across the objects seen, every field
a model declares must appear: a field added to one side only fails here."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import httpx
from pydantic import BaseModel, RootModel

from printcloud.contracts.errors import Error
from printcloud.contracts.events import Event, EventPage, WebhookPayload
from printcloud.contracts.options import CustomPaper, PrintOptions
from printcloud.contracts.resources import (
    Capabilities,
    Computer,
    ComputerPage,
    JobStateChangeList,
    Printer,
    PrinterPage,
    PrintJob,
    PrintJobPage,
    Usage,
    Whoami,
)
from printcloud.contracts.webhooks import CreatedWebhookEndpoint, WebhookDelivery, WebhookDeliveryPage
from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, eventually
from tests.e2e.tenants import create_key, create_org
from tests.support.receiver import Receiver

EVERY_OPTION = {
    "copies": 2, "paper": "A4", "duplex": "long-edge", "color": False, "dpi": "600x600", "bin": "Tray 1",
    "media": "Plain", "collate": True, "fit_to_page": True, "rotate": 90, "pages": "1-3,5", "nup": 2,
}  # fmt: skip


class FieldsSeen:
    """The JSON field names seen for each model, to check that each declared field was rendered."""

    def __init__(self) -> None:
        self.seen: dict[type[BaseModel], set[str]] = defaultdict(set)

    def validate(self, model: type[BaseModel], response: httpx.Response) -> Any:
        assert response.status_code < 300, response.text
        body = response.json()
        model.model_validate_json(response.content)  # strict, JSON mode: exactly what was sent
        self._walk(model, body)
        return body

    def _walk(self, model: type[BaseModel], value: Any) -> None:
        if issubclass(model, RootModel):
            self._walk(type(model.model_validate_json(json.dumps(value)).root), value)
            return
        self.seen[model].update(value)
        for name, field in model.model_fields.items():
            inner = value.get(field.alias or name)
            for nested in _models(field.annotation):
                for item in _items(inner):
                    if isinstance(item, dict) and _fits(nested, item):
                        self._walk(nested, item)

    def unseen(self, model: type[BaseModel]) -> set[str]:
        return {field.alias or name for name, field in model.model_fields.items()} - self.seen[model]


def _models(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in getattr(annotation, "__args__", ()):
        yield from _models(argument)


def _items(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        for item in value:
            yield from _items(item)
    else:
        yield value


def _fits(model: type[BaseModel], value: dict[str, Any]) -> bool:
    try:
        model.model_validate_json(json.dumps(value))
    except ValueError:
        return False
    return True


def test_every_representation_is_exactly_its_contract_model(contract_stack: Stack, webhook_receiver: Receiver) -> None:
    key = create_key(contract_stack, create_org(contract_stack, "Representations"), "test", "read,print,admin")
    fields = FieldsSeen()
    with api(contract_stack.api_url, key) as client:
        printers = eventually(lambda: client.get("/v1/printers").json()["data"], timeout=60, what="virtual printers")
        office = next(p for p in printers if p["name"] == "virtual-office")
        fields.validate(
            Printer,
            client.patch(
                f"/v1/printers/{office['id']}",
                json={"customPapers": [{"name": "Card", "width": 850, "height": 550}], "remarks": "by the desk"},
            ),
        )
        fields.validate(PrinterPage, client.get("/v1/printers"))
        fields.validate(ComputerPage, client.get("/v1/computers"))
        fields.validate(Computer, client.get(f"/v1/computers/{office['computerId']}"))
        endpoint = fields.validate(
            CreatedWebhookEndpoint,
            client.post(
                "/v1/webhooks", json={"url": webhook_receiver.url("/representations"), "events": ["printjob.done"]}
            ),
        )
        job = fields.validate(
            PrintJob,
            client.post(
                "/v1/printjobs",
                json={"printerId": office["id"], "title": "every option", "contentType": "pdf_base64",
                      "content": PDF_BASE64, "options": EVERY_OPTION},
            ),
        )  # fmt: skip
        eventually(lambda: client.get(f"/v1/printjobs/{job['id']}").json()["state"] == "done", what="the job done")
        fields.validate(PrintJob, client.get(f"/v1/printjobs/{job['id']}"))
        fields.validate(PrintJobPage, client.get("/v1/printjobs"))
        fields.validate(JobStateChangeList, client.get(f"/v1/printjobs/{job['id']}/events"))
        fields.validate(WebhookDelivery, client.post(f"/v1/webhooks/{endpoint['id']}/ping"))
        eventually(
            lambda: any(d["attempts"] for d in client.get(f"/v1/webhooks/{endpoint['id']}/deliveries").json()["data"]),
            what="a delivery attempted",
        )
        deliveries = fields.validate(WebhookDeliveryPage, client.get(f"/v1/webhooks/{endpoint['id']}/deliveries"))
        eventually(lambda: "printjob.done" in _types(client), timeout=30, what="printjob.done in the feed")
        feed = fields.validate(EventPage, client.get("/v1/events", params={"limit": 100}))
        fields.validate(Whoami, client.get("/v1/whoami"))
        fields.validate(Usage, client.get("/v1/usage"))
        missing = client.get("/v1/printjobs/00000000-0000-4000-8000-000000000000")
        assert missing.status_code == 404
        Error.model_validate_json(missing.content)
    for delivery in deliveries["data"]:
        WebhookPayload.model_validate_json(json.dumps(delivery["payload"]))
    for event in feed["data"]:
        Event.model_validate_json(json.dumps(event))
    assert {"printjob.queued", "printjob.done", "printer.updated"} <= {event["type"] for event in feed["data"]}
    for model in (Printer, Capabilities, CustomPaper, PrintOptions, Computer, PrintJob, WebhookDelivery):
        assert not fields.unseen(model), f"{model.__name__} declares fields never rendered: {fields.unseen(model)}"


def _types(client: httpx.Client) -> set[str]:
    return {event["type"] for event in client.get("/v1/events", params={"limit": 100}).json()["data"]}
