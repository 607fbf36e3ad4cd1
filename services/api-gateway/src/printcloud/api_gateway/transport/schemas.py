"""The gateway's own request bodies (enrolling an agent) and the query strings of the public API,
and every body the document shows; the bodies that write the public resources are contracts
(`printcloud.contracts.requests`), strict in the same way.

Query values stay strings here; the paging and filter rules parse them so that each rule has one
implementation, and the document says what those rules accept.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    MISSING,
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
    field_validator,
)
from pydantic.json_schema import WithJsonSchema

from printcloud.contracts.enums import SortDirection
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import (
    PRINT_JOB_FORMS,
    ComputerName,
    ComputerUpdate,
    PairingCodeCreate,
    PrinterUpdate,
    PrintJobCreate,
    StrictBody,
    WebhookCreate,
    WebhookUpdate,
)
from printcloud.contracts.resources import Page, PrintJob
from printcloud.contracts.text import NON_BLANK
from printcloud.contracts.webhooks import WebhookDelivery
from printcloud.core.db.paging import MAX_LIMIT
from printcloud.core.storable_text import PROBLEM, is_storable


class ComputerEnrollment(StrictBody):
    hostname: ComputerName = Field(description="The computer's host name; its name unless `name` is given")
    name: ComputerName | MISSING = MISSING


class CodeEnrollment(ComputerEnrollment):
    """Enrolment with a pairing code instead of an API key (docs/api.md, "Pairing codes")."""

    code: Annotated[StrictStr, Field(min_length=1, max_length=64)] = Field(
        description="The pairing code as given, such as `7K4M-9QXP-3T8D`; case, spaces and dashes do not matter"
    )


BODY_MODELS: tuple[type[BaseModel], ...] = (
    PrintJobCreate,
    *PRINT_JOB_FORMS,
    ComputerEnrollment,
    CodeEnrollment,
    PairingCodeCreate,
    ComputerUpdate,
    PrinterUpdate,
    WebhookCreate,
    WebhookUpdate,
)


class NoQuery(BaseModel):
    """For endpoints without query parameters, so a stray one is an error rather than ignored."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _storable(cls, value: object) -> object:
        if isinstance(value, str) and not is_storable(value):
            raise ValueError(PROBLEM)
        return value


# Query values are parsed by the paging and filter rules (strings here); the document says what
# those rules accept, so that a value it allows is never refused.
_LIMIT = WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 25})
_CURSOR = WithJsonSchema(
    {
        "type": "string",
        "format": "uuid",
        "description": f"The `{public_name(Page, lambda page: page.nextCursor)}` of the previous page",
    }
)
_DIRECTION = WithJsonSchema({"$ref": "#/components/schemas/SortDirection", "default": SortDirection.desc})
_UUID = WithJsonSchema({"type": "string", "format": "uuid"})
_TIME = WithJsonSchema({"type": "string", "format": "date-time", "description": "ISO 8601 with a time zone"})


class PagingQuery(NoQuery):
    limit: Annotated[str | None, _LIMIT] = None
    after: Annotated[str | None, _CURSOR] = None
    dir: Annotated[str | None, _DIRECTION] = None


# A filter is named as the field it filters on, so the query names come from the models.
class PrintJobListQuery(PagingQuery):
    printer_id: Annotated[str | None, _UUID] = Field(None, alias=public_name(PrintJob, lambda job: job.printerId))
    computer_id: Annotated[str | None, _UUID] = Field(None, alias=public_name(PrintJob, lambda job: job.computerId))
    state: Annotated[str | None, WithJsonSchema({"$ref": "#/components/schemas/JobState"})] = None
    createdFrom: Annotated[str | None, _TIME] = Field(None, description="Jobs created at or after")
    createdTo: Annotated[str | None, _TIME] = Field(None, description="Jobs created at or before")
    title: Annotated[
        str | None, WithJsonSchema({"type": "string", "minLength": 1, "maxLength": 255, "pattern": NON_BLANK})
    ] = Field(None, description="Jobs whose title contains this text, ignoring case")


class DeliveryListQuery(PagingQuery):
    status: Annotated[str | None, WithJsonSchema({"$ref": "#/components/schemas/DeliveryStatus"})] = None


class AllDeliveriesQuery(DeliveryListQuery):
    endpoint_id: Annotated[str | None, _UUID] = Field(
        None,
        alias=public_name(WebhookDelivery, lambda delivery: delivery.endpointId),
        description="Only this endpoint's deliveries",
    )
