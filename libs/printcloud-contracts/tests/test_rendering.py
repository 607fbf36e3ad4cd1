"""Representations are rendered from the gRPC messages by their models: each public field has its
counterpart in the message, and a field without one is refused where the renderer is made."""

from __future__ import annotations

from typing import Any

import pytest

from printcloud.contracts import representations
from printcloud.contracts.base import Contract
from printcloud.contracts.rendering import NoCounterpart, proto_name, rendered, renderer
from printcloud.contracts.resources import PrintJob
from printcloud.v1 import devices_pb2, jobs_pb2, webhooks_pb2


def _public_names(model: type[Contract]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _missing(model: type[Contract], descriptor: Any, derived: frozenset[str]) -> list[str]:
    """The model's fields that neither the message nor `derived` gives, nested models included."""
    missing = []
    for name, info in model.model_fields.items():
        public_name = info.alias or name
        snake = proto_name(public_name)
        field = descriptor.fields_by_name.get(snake) or descriptor.fields_by_name.get(f"{snake}_json")
        if public_name in derived:
            continue
        if field is None:
            missing.append(f"{model.__name__}.{public_name}")
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            nested = next(arg for arg in (info.annotation, *getattr(info.annotation, "__args__", ())) if _is_model(arg))
            missing += _missing(nested, field.message_type, frozenset())
    return missing


def _is_model(annotation: object) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Contract)


def test_every_rendered_model_has_each_field_in_its_message() -> None:
    pairs = rendered()
    assert {model.__name__ for model, _, _ in pairs} >= {
        "Computer",
        "Printer",
        "PrintJob",
        "JobStateChange",
        "PairingCode",
        "PairingCodeEnrollment",
        "WebhookEndpoint",
        "CreatedWebhookEndpoint",
        "WebhookDelivery",
    }
    for model, message, derived in pairs:
        assert _missing(model, message.DESCRIPTOR, frozenset(derived)) == []
        # Every public field, in the model's order, even from an empty message.
        assert list(renderer(model, message, derived)(message())) == _public_names(model)


class _WithAnExtraField(PrintJob):
    printerColour: str


def test_a_model_field_without_a_counterpart_is_refused_where_the_renderer_is_made() -> None:
    with pytest.raises(NoCounterpart, match=r"_WithAnExtraField\.printerColour"):
        renderer(_WithAnExtraField, jobs_pb2.PrintJob)


def test_a_derived_field_the_model_does_not_have_is_refused() -> None:
    with pytest.raises(NoCounterpart, match="usesLeft"):
        renderer(PrintJob, jobs_pb2.PrintJob, {"usesLeft": lambda job: 0})


def test_unset_optional_fields_are_null_and_set_ones_their_value() -> None:
    job = jobs_pb2.PrintJob(sent_at="2026-01-02T03:04:05Z", options_json='{"copies": 2}')
    shown = representations.print_job(job)
    assert shown["sentAt"] == "2026-01-02T03:04:05Z"
    assert shown["finishedAt"] is None
    assert shown["stateMessage"] is None
    assert shown["options"] == {"copies": 2}


def test_json_fields_lists_and_nested_messages_follow_the_model() -> None:
    printer = devices_pb2.Printer(
        capabilities_json="",
        state_reasons=["media-empty", "paused"],
        custom_papers=[devices_pb2.CustomPaper(name="Card", width=850, height=550)],
    )
    shown = representations.printer(printer)
    assert shown["capabilities"] == {}
    assert shown["stateReasons"] == ["media-empty", "paused"]
    assert shown["customPapers"] == [{"name": "Card", "width": 850, "height": 550}]


def test_maps_and_repeated_messages_of_a_delivery() -> None:
    delivery = webhooks_pb2.WebhookDelivery(
        payload_json='{"type": "ping"}',
        attempts=[webhooks_pb2.DeliveryAttempt(attempt=1, response_code=500, request_headers={"webhook-id": "e"})],
    )
    shown = representations.webhook_delivery(delivery)
    assert shown["payload"] == {"type": "ping"}
    assert shown["responseCode"] is None
    assert shown["attempts"] == [
        {
            "attempt": 1,
            "sentAt": "",
            "responseCode": 500,
            "responseBodyExcerpt": "",
            "requestHeaders": {"webhook-id": "e"},
        }
    ]


def test_a_pairing_codes_uses_left_is_derived_and_never_below_zero() -> None:
    assert representations.pairing_code(devices_pb2.PairingCode(max_uses=3, uses=1))["usesLeft"] == 2
    assert representations.pairing_code(devices_pb2.PairingCode(max_uses=1, uses=2))["usesLeft"] == 0
