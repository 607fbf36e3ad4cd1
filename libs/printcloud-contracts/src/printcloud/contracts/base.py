"""What every contract model shares: exact fields, and the types of ids, times and JSON integers."""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, StrictInt
from pydantic.json_schema import WithJsonSchema


class Contract(BaseModel):
    """A public representation: no field beyond those declared, and nothing coerced (a number is
    never a string), so a model validates exactly what the API sends or accepts. Fields that are
    null at times are `X | None` and always present."""

    model_config = ConfigDict(extra="forbid", strict=True, use_enum_values=True)


# Ids stay strings (nothing parses them on the way through), documented as `format: uuid`.
Uuid = Annotated[str, WithJsonSchema({"type": "string", "format": "uuid"})]
Timestamp = Annotated[AwareDatetime, Field(description="ISO 8601 date-time, UTC")]


def integral(value: object) -> object:
    """JSON does not tell `2` from `2.0` (JSON Schema's `integer` is any number without a fraction),
    so a float with no fraction is the integer it equals; anything else is left to be refused."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


JsonInt = Annotated[StrictInt, BeforeValidator(integral)]

# Bounds sit on the integer, inside the validator: outside it they would reach the document as `ge`/`le`.
NonNegativeInt = Annotated[StrictInt, Field(ge=0), BeforeValidator(integral)]
PositiveInt = Annotated[StrictInt, Field(ge=1), BeforeValidator(integral)]
