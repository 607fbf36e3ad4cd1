"""A form shown again after a refusal: the values as sent, and each error beside its field."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from starlette.datastructures import FormData

from printcloud.contracts.errors import ApiError

# The API names the field it refuses in backquotes: "Invalid field `events`: ...", with dots for
# nested ones ("Print option `defaultOptions.duplex` must be ...").
_NAMED_FIELD = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)`")
FORM_LEVEL = ""


@dataclass(frozen=True)
class FormState:
    values: Mapping[str, str | list[str]] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)

    def value(self, name: str, default: str = "") -> str:
        found = self.values.get(name, default)
        return found if isinstance(found, str) else default

    def chosen(self, name: str) -> list[str]:
        found = self.values.get(name, [])
        return found if isinstance(found, list) else [found]

    def error(self, name: str) -> str:
        return self.errors.get(name, "")

    @property
    def form_error(self) -> str:
        return self.errors.get(FORM_LEVEL, "")


EMPTY = FormState()


class FieldRefused(Exception):
    """A value the page itself refuses before asking the API, with the field it belongs beside."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def state(self, form: FormData, *, lists: Sequence[str] = ()) -> FormState:
        return FormState(sent(form, lists=lists), {self.field: self.message})


def sent(form: FormData, *, lists: Sequence[str] = ()) -> dict[str, str | list[str]]:
    """The values of a posted form (files and the CSRF token left out); `lists` name multi-valued fields."""
    kept: dict[str, str | list[str]] = {}
    for name, value in form.multi_items():
        if name == "csrf_token" or not isinstance(value, str):
            continue
        if name in lists:
            chosen = kept.setdefault(name, [])
            assert isinstance(chosen, list)
            chosen.append(value)
        else:
            kept[name] = value
    for name in lists:
        kept.setdefault(name, [])
    return kept


def errors_of(error: ApiError, fields: Mapping[str, str], by_code: Mapping[str, str] | None = None) -> dict[str, str]:
    """The refusal beside the field it is about: by its code (`invalid_url` is the URL's), else by
    the API field it names (`fields` maps API names to form names), else above the form."""
    message = error.message
    if by_code and error.code in by_code:
        return {by_code[error.code]: message}
    named = _NAMED_FIELD.search(message)
    if named:
        parts = named.group(1).split(".")
        for length in range(len(parts), 0, -1):
            name = ".".join(parts[:length])
            if name in fields:
                return {fields[name]: message}
    return {FORM_LEVEL: message}
