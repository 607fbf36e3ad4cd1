"""What the generated models stand on: tolerant of what a newer server adds."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr


class ApiModel(BaseModel):
    """A representation of the API. Fields are snake_case (`printer_id`) and read from the JSON
    names (`printerId`); either name is accepted when building one. A field a newer server sends
    that this SDK does not know is kept (`model_extra`) rather than refused."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    _received: dict[str, Any] | None = PrivateAttr(None)

    def received_json(self) -> dict[str, Any]:
        """The JSON this model was read from, as the API sent it (else `to_json()`)."""
        return self._received if self._received is not None else self.to_json()

    def to_json(self) -> dict[str, Any]:
        """The JSON the API takes: its field names, without the fields left unset."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class ApiEnum(StrEnum):
    """A closed set of values as the SDK knows it; a value a newer server adds is still read (as a
    member outside the set, equal to its text) rather than refused."""

    @classmethod
    def _missing_(cls, value: object) -> ApiEnum | None:
        if not isinstance(value, str):
            return None
        unknown = str.__new__(cls, value)
        unknown._name_ = value
        unknown._value_ = value
        return unknown


class ApiIntEnum(IntEnum):
    @classmethod
    def _missing_(cls, value: object) -> ApiIntEnum | None:
        if not isinstance(value, int):
            return None
        unknown = int.__new__(cls, value)
        unknown._name_ = str(value)
        unknown._value_ = value
        return unknown
