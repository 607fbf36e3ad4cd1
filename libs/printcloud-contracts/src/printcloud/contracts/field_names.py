"""A contract field's public name, for the places that must name a field as text (a refusal that
names what it refuses, the keys of a change list): taken from the model, so that it is not
spelled a second time and a rename of the model's field cannot leave it behind."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)


class _FieldReader:
    """Stands in for a model instance: reading an attribute answers the attribute's name."""

    def __getattr__(self, name: str) -> str:
        return name


def public_name(model: type[Model], field: Callable[[Model], object]) -> str:
    """The public name of the field `field` reads: `public_name(Printer, lambda p: p.displayName)`.

    mypy checks the read against the model; a read of anything the model does not declare as a
    field raises LookupError where the name is taken, at import for a module's constants."""
    name = field(cast(Model, _FieldReader()))
    if not isinstance(name, str) or name not in model.model_fields:
        raise LookupError(f"{model.__name__} has no field {name!r}")
    return model.model_fields[name].alias or name
