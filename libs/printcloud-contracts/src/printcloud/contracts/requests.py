"""Request bodies of the public API that write its resources: a new print job, a change to a
printer or a computer, a pairing code, a webhook endpoint and its changes.

Strict on purpose: unknown fields are errors, a boolean is not an integer, a number is not a
string, and `null` is not a way to omit a field (but `2.0` is the integer 2, as in JSON Schema).
The gateway parses bodies with these models and its OpenAPI document's request schemas come from
them, with the `oneOf` forms and patterns of what the services check further (`PrintOptions`,
`PRINT_JOB_FORMS`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import MISSING, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from pydantic.json_schema import WithJsonSchema

from printcloud.contracts.base import integral
from printcloud.contracts.enums import ContentType, EventType
from printcloud.contracts.options import MAX_CUSTOM_PAPERS, CustomPaper
from printcloud.contracts.resources import ExpireAfter, Quantity, Title
from printcloud.contracts.text import NON_BLANK

# Patterns of the document only (pydantic never runs them: the rules live where the values are
# checked). Both regex dialects read them alike; NUL is refused everywhere, which the gateway's
# document adds to every string.
_B64 = "[A-Za-z0-9+/]"
_B64_TAIL = f"(?:{_B64}{{4}})*(?:{_B64}{{2}}==|{_B64}{{3}}=)?"
BASE64 = f"^(?:{_B64}{{4}})*(?:{_B64}{{4}}|{_B64}{{2}}==|{_B64}{{3}}=)$"
# "%PDF-" is "JVBERi" and one of 0-3 in base64; what follows completes the quartet and goes on.
PDF_BASE64 = f"^JVBERi[0-3](?:=|{_B64}{_B64_TAIL})$"
HTTP_URL = "^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[!-~]*)?$"


# Options are checked by the services (printcloud.contracts.option_checks); `PrintOptions` shows the rules.
_OPTIONS = WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/PrintOptions"}]})


def documented_as(schema: dict[str, Any]) -> Any:
    return Field(json_schema_extra=schema)


def _integral_options(options: object) -> object:
    # Print options are checked by the services, which take only Python ints for integers.
    if isinstance(options, dict):
        return {name: integral(value) for name, value in options.items()}
    return options


JsonOptions = Annotated[dict[str, Any], BeforeValidator(_integral_options)]
Source = Annotated[StrictStr, Field(max_length=255)]


class StrictBody(BaseModel):
    # `MISSING` marks an omitted optional field, so JSON null is rejected like any other wrong type.
    model_config = ConfigDict(extra="forbid", strict=True)


class BasicAuthCredentials(StrictBody):
    user: StrictStr
    password: StrictStr = Field(alias="pass", repr=False)


class ContentAuthentication(StrictBody):
    type: Literal["BasicAuth"]
    credentials: BasicAuthCredentials


def _print_job_forms(schema: dict[str, Any]) -> None:
    """The spec's two forms, and the new document by kind of content; the parsing model above is
    one flat model because the form is checked once, with its own messages (`check_body_form`)."""
    schema.clear()
    schema["oneOf"] = [{"$ref": f"#/components/schemas/{form.__name__}"} for form in PRINT_JOB_FORMS]
    schema["description"] = "A new document (by URL or as base64) or a reprint of an earlier job's file."


class PrintJobCreate(StrictBody):
    model_config = ConfigDict(json_schema_extra=_print_job_forms)

    printerId: StrictStr
    title: Title
    contentType: Annotated[ContentType, Field(strict=False)] | MISSING = MISSING
    content: Annotated[StrictStr, Field(min_length=1)] | MISSING = MISSING
    source: Source | MISSING = MISSING
    qty: Quantity | MISSING = MISSING
    expireAfter: ExpireAfter | MISSING = MISSING
    options: JsonOptions | MISSING = MISSING
    authentication: ContentAuthentication | MISSING = MISSING
    reprintOf: Annotated[StrictStr, Field(min_length=1, max_length=255)] | MISSING = MISSING


# Names hold more than blanks; pydantic checks the pattern the document shows.
ComputerName = Annotated[StrictStr, Field(min_length=1, max_length=255, pattern=NON_BLANK)]


MAX_PAIRING_USES = 1000
MAX_PAIRING_DESCRIPTION = 200
MaxUses = Annotated[StrictInt, Field(ge=1, le=MAX_PAIRING_USES), BeforeValidator(integral)]


class PairingCodeCreate(StrictBody):
    description: Annotated[StrictStr, Field(max_length=MAX_PAIRING_DESCRIPTION)] | MISSING = Field(
        MISSING, description="What the code is for, such as the rollout it belongs to"
    )
    maxUses: MaxUses | MISSING = Field(MISSING, description="How many computers the code may enrol; default 1")
    expireAfter: ExpireAfter | MISSING = Field(
        MISSING, description="Seconds the code stays usable; default 86400 (24 hours), at most 604800 (7 days)"
    )


class ComputerUpdate(StrictBody):
    name: ComputerName | MISSING = Field(MISSING, description="Surrounding blanks are trimmed")
    enabled: StrictBool | MISSING = Field(MISSING, description="false disables the computer and disconnects its agent")


class PrinterUpdate(StrictBody):
    defaultOptions: Annotated[JsonOptions, _OPTIONS] | MISSING = MISSING
    customPapers: Annotated[list[CustomPaper], Field(max_length=MAX_CUSTOM_PAPERS)] | MISSING = Field(
        MISSING,
        description="Replaces the whole list. Paper names are unique on a printer: two papers with the same "
        "`name` are refused (400), which no JSON Schema keyword states (uniqueItems compares whole items).",
        json_schema_extra={"uniqueItems": True},
    )
    displayName: Annotated[StrictStr, Field(max_length=255, pattern=NON_BLANK)] | MISSING = MISSING
    enabled: StrictBool | MISSING = MISSING
    remarks: Annotated[StrictStr, Field(max_length=2000)] | MISSING | None = Field(MISSING, description="null clears")


EventTypeName = Annotated[EventType, Field(strict=False)]
Url = Annotated[StrictStr, Field(min_length=1, max_length=2048), documented_as({"pattern": HTTP_URL})]
Description = Annotated[StrictStr, Field(max_length=500)]
EventTypes = Annotated[list[EventTypeName], Field(min_length=1)]


class WebhookCreate(StrictBody):
    url: Url = Field(description="https; test-mode endpoints may use http; must resolve to a public address")
    description: Description | MISSING = MISSING
    events: EventTypes


class WebhookUpdate(StrictBody):
    url: Url | MISSING = MISSING
    description: Description | MISSING = MISSING
    events: EventTypes | MISSING = MISSING
    enabled: StrictBool | MISSING = Field(MISSING, description="true re-enables an endpoint")


PrinterId = Annotated[StrictStr, documented_as({"format": "uuid"})]
Options = Annotated[JsonOptions, _OPTIONS]


class _NewDocument(StrictBody):
    printerId: PrinterId
    title: Title
    source: Source | MISSING = MISSING
    qty: Quantity | MISSING = MISSING
    expireAfter: ExpireAfter | MISSING = MISSING
    options: Options | MISSING = MISSING


class DocumentByUrl(_NewDocument):
    """Fetched once after creation; `authentication` for a URL behind Basic authentication."""

    contentType: Literal["pdf_uri", "raw_uri"]
    content: Url
    authentication: ContentAuthentication | MISSING = MISSING


class PdfDocument(_NewDocument):
    contentType: Literal["pdf_base64"]
    content: Annotated[StrictStr, documented_as({"pattern": PDF_BASE64, "description": "A PDF in standard base64"})]


class RawDocument(_NewDocument):
    contentType: Literal["raw_base64"]
    content: Annotated[StrictStr, documented_as({"pattern": BASE64, "description": "Standard base64"})]


class Reprint(StrictBody):
    """The stored file of an earlier job of this organization and mode, printed again; `source`
    and `qty` describe the new job as they do a new document's."""

    printerId: PrinterId
    title: Title
    reprintOf: Annotated[StrictStr, Field(min_length=1, max_length=255), documented_as({"format": "uuid"})]
    source: Source | MISSING = MISSING
    qty: Quantity | MISSING = MISSING


PRINT_JOB_FORMS: tuple[type[BaseModel], ...] = (DocumentByUrl, PdfDocument, RawDocument, Reprint)

# The forms told apart by their fields, for the rule that checks a body's form once with its own
# messages: what only a reprint sends, what only a new document sends, and what a new document must.
REPRINT_OF = next(name for name in Reprint.model_fields if name not in _NewDocument.model_fields)
NEW_DOCUMENT_ONLY = tuple(name for name in PrintJobCreate.model_fields if name not in Reprint.model_fields)
NEW_DOCUMENT_REQUIRED = tuple(
    name for name, field in PdfDocument.model_fields.items() if field.is_required() and name not in Reprint.model_fields
)
