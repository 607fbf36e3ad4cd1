"""A gRPC message made from a value whose fields bear the message's names, so that a field both
gain is carried without a line naming it: `x_json` carries the value's `x` as JSON text, ids and
times go as text, a `None` leaves an optional field unset. The pairing is made once, when the
module that needs it loads, and a message field the value's type lacks stops it there."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message

from printcloud.core.timeutil import isoformat

M = TypeVar("M", bound=Message)

_JSON = "_json"


class ByName(Generic[M]):
    def __init__(self, message: type[M], attributes: Iterable[str], source: str) -> None:
        """`attributes`: the names the values of `source` (a type's name, for the refusal) carry."""
        known = set(attributes)
        self._message = message
        self._pairs = tuple(
            (field.name, field.name.removesuffix(_JSON), field.name.endswith(_JSON))
            for field in message.DESCRIPTOR.fields
        )
        missing = [attribute for _, attribute, _ in self._pairs if attribute not in known]
        if missing:
            raise TypeError(f"{message.DESCRIPTOR.name} fields with no counterpart on {source}: {', '.join(missing)}")

    def message(self, value: object, **given: Any) -> M:
        """The message of `value`; `given` fields are taken as they are instead of from `value`."""
        fields = {
            name: json.dumps(getattr(value, attribute)) if as_json else _wire(getattr(value, attribute))
            for name, attribute, as_json in self._pairs
            if name not in given
        }
        fields.update(given)
        return self._message(**{name: field for name, field in fields.items() if field is not None})


def _wire(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return isoformat(value)
    return value
