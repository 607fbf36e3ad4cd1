"""What the sync and async clients share: settings, request bodies and query strings, documents."""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from printcloud_sdk import models
from printcloud_sdk.errors import PrinterLookupError

BASE_URL_VARIABLE = "PRINTCLOUD_BASE_URL"
API_KEY_VARIABLE = "PRINTCLOUD_API_KEY"
USER_AGENT = "printcloud-sdk-python/1.0.0"

TERMINAL_JOB_STATES = frozenset(
    {models.JobState.DONE, models.JobState.ERROR, models.JobState.CANCELLED, models.JobState.EXPIRED}
)


class NotGiven:
    """An argument left out, as opposed to `None` (which some fields take, to clear them)."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: str

    @classmethod
    def resolve(cls, api_key: str | None, base_url: str | None) -> Settings:
        key = api_key or os.environ.get(API_KEY_VARIABLE)
        url = base_url or os.environ.get(BASE_URL_VARIABLE)
        if not key:
            raise ValueError(f"no API key: pass api_key or set {API_KEY_VARIABLE}")
        if not url:
            raise ValueError(
                f"no address: pass base_url or set {BASE_URL_VARIABLE} (such as https://print.example.com)"
            )
        return cls(base_url=url.rstrip("/"), api_key=key)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}", "User-Agent": USER_AGENT}

    def __repr__(self) -> str:
        # The key never reaches a log through a repr.
        return f"Settings(base_url={self.base_url!r}, api_key=...)"


def present(keep_none: frozenset[str] | set[str] = frozenset(), **fields: Any) -> dict[str, Any]:
    """The fields that were given: `NOT_GIVEN` is left out, and `None` too unless its name is in
    `keep_none` (where it means null)."""
    return {
        name: value
        for name, value in fields.items()
        if not isinstance(value, NotGiven) and (value is not None or name in keep_none)
    }


def query(**parameters: Any) -> dict[str, Any]:
    return {name: str(value) for name, value in parameters.items() if value is not None}


def options_json(options: models.PrintOptions | Mapping[str, Any] | NotGiven | None) -> Any:
    if isinstance(options, models.PrintOptions):
        return options.to_json()
    if isinstance(options, Mapping):
        return dict(options)
    return options


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def document_content(document: bytes) -> tuple[str, str]:
    """The content type and base64 content of a document: a PDF when it starts as one (`%PDF-`),
    raw printer data otherwise."""
    content_type = "pdf_base64" if document.startswith(b"%PDF-") else "raw_base64"
    return content_type, base64.b64encode(document).decode("ascii")


def looks_like_id(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def matching_printer(name: str, printers: list[models.Printer]) -> models.Printer:
    """The one printer with this `name`, else the one with this `displayName`."""
    for field in ("name", "display_name"):
        found = [printer for printer in printers if getattr(printer, field) == name]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            ids = ", ".join(printer.id for printer in found)
            raise PrinterLookupError(f"{len(found)} printers are named {name!r} ({ids}): give an id")
    raise PrinterLookupError(f"no printer named {name!r} in this key's mode")
