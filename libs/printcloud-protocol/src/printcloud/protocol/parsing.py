"""Decoded JSON objects to typed messages, and a refusal to the reason a gateway closes with.

The gateway decodes an agent's frame with core's bounded JSON first (this package stays free of
server code, since customers install it with the agent); the agent trusts its gateway's JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from printcloud.protocol.constants import (
    HELLO,
    JOB,
    JOB_CANCEL,
    JOB_STATE,
    JOB_STATE_RECORDED,
    PRINTERS,
    PROTOCOL_VERSION,
    WELCOME,
)
from printcloud.protocol.messages import (
    REFUSED,
    Hello,
    Job,
    JobCancel,
    JobState,
    JobStateRecorded,
    MessageBounds,
    Printers,
    Welcome,
    WireModel,
)

HELLO_EXPECTED = f"hello with protocolVersion {PROTOCOL_VERSION} expected"
HELLO_TWICE = "hello sent twice"
JOB_STATE_REFUSED = "job.state needs jobId, a known state and a text message"
_OBJECT_ERRORS = frozenset({"dict_type", "model_type", "model_attributes_type"})
M = TypeVar("M", bound=WireModel)

AgentMessage = Printers | JobState
GatewayMessage = Welcome | Job | JobCancel | JobStateRecorded


class ProtocolError(ValueError):
    """A message that breaks protocol v1; a gateway closes the agent with 4400 and this reason."""


@dataclass(frozen=True)
class UnknownMessage:
    """A message type this version does not know: ignored, so that a newer peer can talk to this one."""

    type: object


def parse_hello(raw: Mapping[str, Any], bounds: MessageBounds) -> Hello:
    """The agent's first message; anything but a hello of this version is refused."""
    if raw.get("type") != HELLO:
        raise ProtocolError(HELLO_EXPECTED)
    return _validated(Hello, raw, bounds)


def parse_agent_message(raw: Mapping[str, Any], bounds: MessageBounds) -> AgentMessage | UnknownMessage:
    """A message of a welcomed agent."""
    kind = raw.get("type")
    if kind == JOB_STATE:
        try:
            return JobState.model_validate(raw)
        except ValidationError:
            raise ProtocolError(JOB_STATE_REFUSED) from None
    if kind == PRINTERS:
        return _validated(Printers, raw, bounds)
    if kind == HELLO:
        raise ProtocolError(HELLO_TWICE)
    return UnknownMessage(kind)


_GATEWAY_MESSAGES: dict[str, type[GatewayMessage]] = {
    WELCOME: Welcome,
    JOB: Job,
    JOB_CANCEL: JobCancel,
    JOB_STATE_RECORDED: JobStateRecorded,
}


def parse_gateway_message(text: str | bytes) -> GatewayMessage | UnknownMessage:
    """A message from the gateway, as the agent reads it; `ProtocolError` when it is malformed."""
    try:
        raw = json.loads(text)
    except ValueError:
        raise ProtocolError("not JSON") from None
    if not isinstance(raw, dict):
        raise ProtocolError("a message is a JSON object")
    model = _GATEWAY_MESSAGES.get(raw.get("type"))  # type: ignore[arg-type]
    if model is None:
        return UnknownMessage(raw.get("type"))
    return _validated(model, raw, None)


def _validated(model: type[M], raw: Mapping[str, Any], bounds: MessageBounds | None) -> M:
    try:
        return model.model_validate(raw, context=bounds)
    except ValidationError as error:
        raise ProtocolError(_reason(error)) from None


def _reason(error: ValidationError) -> str:
    """The first problem, named by its field as the agent sent it."""
    first = error.errors(include_url=False)[0]
    if first["type"] == REFUSED:
        return first["msg"]
    names = [part for part in first["loc"] if isinstance(part, str)]
    if names == ["protocolVersion"]:
        return HELLO_EXPECTED
    name = names[-1] if names else "a message"
    return f"{name} must be {'an object' if first['type'] in _OBJECT_ERRORS else 'a string'}"
