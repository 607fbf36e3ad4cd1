"""The form that makes a pairing code: how many computers it may enrol and how long it lives, in
hours or days as people choose, turned into the body `POST /v1/agent/pairing-codes` takes. The
bounds are the API's own; the page says what it refuses in words, beside the field, and the API
still checks whatever is sent."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import FormData

from printcloud.api_gateway.transport.dashboard.form_state import FieldRefused
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import MAX_PAIRING_DESCRIPTION, MAX_PAIRING_USES, PairingCodeCreate
from printcloud.contracts.resources import MAX_EXPIRE_AFTER

HOUR = 3600
DAY = 24 * HOUR
LIFETIME_UNITS: dict[str, int] = {"hours": HOUR, "days": DAY}
# What the form shows before anything is sent: the API's defaults (one computer, 24 hours).
DEFAULTS: dict[str, str | list[str]] = {"max_uses": "1", "lifetime": "1", "lifetime_unit": "days"}
# The API's names of the body's fields, and the form's.
MAX_USES = public_name(PairingCodeCreate, lambda body: body.maxUses)
EXPIRE_AFTER = public_name(PairingCodeCreate, lambda body: body.expireAfter)
API_FIELDS = {"description": "description", MAX_USES: "max_uses", EXPIRE_AFTER: "lifetime"}
_WHOLE_NUMBER = re.compile(r"[0-9]{1,7}")


@dataclass(frozen=True)
class Limits:
    """The bounds the form's fields show (`max`, `maxlength`) and its messages name."""

    max_uses: int = MAX_PAIRING_USES
    max_hours: int = MAX_EXPIRE_AFTER // HOUR
    max_days: int = MAX_EXPIRE_AFTER // DAY
    description_length: int = MAX_PAIRING_DESCRIPTION


LIMITS = Limits()


def _whole_number(form: FormData, name: str) -> int | None:
    value = form.get(name)
    text = value.strip() if isinstance(value, str) else ""
    return int(text) if _WHOLE_NUMBER.fullmatch(text) else None


def pairing_code_body(form: FormData) -> dict[str, Any]:
    """The API body for the form's terms, or FieldRefused for a value outside them."""
    uses = _whole_number(form, "max_uses")
    if uses is None or not 1 <= uses <= LIMITS.max_uses:
        raise FieldRefused("max_uses", f"Enter a whole number of computers from 1 to {LIMITS.max_uses:,}.")
    unit = LIFETIME_UNITS.get(str(form.get("lifetime_unit", "")))
    amount = _whole_number(form, "lifetime")
    if unit is None or amount is None or not HOUR <= amount * unit <= MAX_EXPIRE_AFTER:
        raise FieldRefused(
            "lifetime",
            f"A code lives from 1 hour to {LIMITS.max_days} days ({LIMITS.max_hours} hours): "
            "enter a whole number of hours or days.",
        )
    body: dict[str, Any] = {MAX_USES: uses, EXPIRE_AFTER: amount * unit}
    description = form.get("description")
    if isinstance(description, str) and description.strip():
        body["description"] = description.strip()
    return body
