"""A contract model's JSON, read from the gRPC message that carries it, field by field.

Each public field `fooBar` is the message's `foo_bar`; a `foo_bar_json` string holds the field's
JSON as it is sent. A field the message may leave unset (proto3 `optional`, a message) is null
when unset; repeated fields, maps and nested messages follow the model's own types. The public
names are spelled once, in the models: a model field with no counterpart in the message is an
error when its plan is made, and a test makes the plan of every rendered model.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable, Mapping
from functools import cache
from operator import attrgetter
from typing import Any, Union, get_args, get_origin

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from printcloud.contracts.base import Contract

Read = Callable[[Any], Any]
Render = Callable[[Any], dict[str, Any]]
# Fields the message does not carry but derives, such as a count left: name to how it is read.
Derived = Mapping[str, Read]

_UPPER = re.compile("([A-Z])")


class NoCounterpart(LookupError):
    """A model field the message has nothing for: the model and the message disagree."""


def proto_name(public_name: str) -> str:
    return _UPPER.sub(r"_\1", public_name).lower()


def _nested_model(annotation: Any) -> type[Contract] | None:
    """The contract model a field holds, itself or in a list or an optional."""
    if isinstance(annotation, type) and issubclass(annotation, Contract):
        return annotation
    if get_origin(annotation) in (list, Union, types.UnionType):
        for arg in get_args(annotation):
            found = _nested_model(arg)
            if found is not None:
                return found
    return None


def _reader(model: type[Contract], public_name: str, annotation: Any, descriptor: Descriptor) -> Read:
    name = proto_name(public_name)
    field = descriptor.fields_by_name.get(name)
    if field is None:
        as_json = descriptor.fields_by_name.get(f"{name}_json")
        if as_json is None or as_json.type != FieldDescriptor.TYPE_STRING:
            raise NoCounterpart(f"{model.__name__}.{public_name}: {descriptor.full_name} has no {name}")
        json_name = as_json.name
        # The services leave a JSON object unset as "" rather than "{}".
        return lambda message: json.loads(getattr(message, json_name) or "{}")
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return lambda message: dict(getattr(message, name))
    if field.message_type is not None:
        return _nested_reader(model, public_name, annotation, field)
    if field.is_repeated:
        return lambda message: list(getattr(message, name))
    if field.has_presence:
        return lambda message: getattr(message, name) if message.HasField(name) else None
    # Most fields: attrgetter reads in C, which keeps a page of representations cheap.
    return attrgetter(name)


def _nested_reader(model: type[Contract], public_name: str, annotation: Any, field: FieldDescriptor) -> Read:
    nested = _nested_model(annotation)
    message_type = field.message_type
    if nested is None or message_type is None:
        raise NoCounterpart(f"{model.__name__}.{public_name}: no model for {field.full_name}")
    render = _plan(nested, message_type)
    name = field.name
    if field.is_repeated:
        return lambda message: [render(item) for item in getattr(message, name)]
    return lambda message: render(getattr(message, name)) if message.HasField(name) else None


@cache
def _plan(model: type[Contract], descriptor: Descriptor, derived: tuple[tuple[str, Read], ...] = ()) -> Render:
    """How `model` is read from messages of `descriptor`, made once per model: a read is one call per field."""
    computed = dict(derived)
    readers: list[tuple[str, Read]] = []
    for field_name, info in model.model_fields.items():
        public_name = info.alias or field_name
        read = computed.pop(public_name, None) or _reader(model, public_name, info.annotation, descriptor)
        readers.append((public_name, read))
    if computed:
        raise NoCounterpart(f"{model.__name__} has no fields {sorted(computed)}")
    plan = tuple(readers)

    def render(message: Any) -> dict[str, Any]:
        return {public_name: read(message) for public_name, read in plan}

    return render


def renderer(model: type[Contract], message: type[Message], derived: Derived | None = None) -> Render:
    """The function that renders `model` from a `message`; its plan is made here, so a mismatch
    fails at import rather than on a request."""
    render = _plan(model, message.DESCRIPTOR, tuple((derived or {}).items()))
    made = (model, message, derived or {})
    if made not in _RENDERED:
        _RENDERED.append(made)
    return render


_RENDERED: list[tuple[type[Contract], type[Message], Derived]] = []


def rendered() -> tuple[tuple[type[Contract], type[Message], Derived], ...]:
    """Every model a renderer was made for, with its message and derived fields."""
    return tuple(_RENDERED)
