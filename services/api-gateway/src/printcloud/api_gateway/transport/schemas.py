"""Request bodies and query strings of the public API.

Strict on purpose: unknown fields are errors, a boolean is not an integer, a number is not a
string, and `null` is not a way to omit a field. Query values stay strings here; the paging and
filter rules parse them so that each rule has one implementation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import MISSING, BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from printcloud.api_gateway.domain.print_jobs import CONTENT_TYPES
from printcloud.core.storable_text import PROBLEM, is_storable


class StrictBody(BaseModel):
    # `MISSING` marks an omitted optional field, so JSON null is rejected like any other wrong type.
    model_config = ConfigDict(extra="forbid", strict=True)


class BasicAuthCredentials(StrictBody):
    user: StrictStr
    password: StrictStr = Field(alias="pass", repr=False)


class ContentAuthentication(StrictBody):
    type: Literal["BasicAuth"]
    credentials: BasicAuthCredentials


class PrintJobCreate(StrictBody):
    printerId: StrictStr
    title: Annotated[StrictStr, Field(min_length=1, max_length=255)]
    contentType: Literal[CONTENT_TYPES] | MISSING = MISSING  # type: ignore[valid-type]
    content: Annotated[StrictStr, Field(min_length=1)] | MISSING = MISSING
    source: Annotated[StrictStr, Field(max_length=255)] | MISSING = MISSING
    qty: Annotated[StrictInt, Field(ge=1, le=100)] | MISSING = MISSING
    expireAfter: Annotated[StrictInt, Field(ge=60, le=604800)] | MISSING = MISSING
    options: dict[str, Any] | MISSING = MISSING
    authentication: ContentAuthentication | MISSING = MISSING
    reprintOf: Annotated[StrictStr, Field(min_length=1, max_length=255)] | MISSING = MISSING


class ComputerEnrollment(StrictBody):
    hostname: Annotated[StrictStr, Field(min_length=1, max_length=255)]
    name: Annotated[StrictStr, Field(min_length=1, max_length=255)] | MISSING = MISSING


BODY_MODELS: tuple[type[BaseModel], ...] = (PrintJobCreate, ComputerEnrollment)


class NoQuery(BaseModel):
    """For endpoints without query parameters, so a stray one is an error rather than ignored."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        if isinstance(value, str) and not is_storable(value):
            raise ValueError(PROBLEM)
        return value


class PagingQuery(NoQuery):
    limit: str | None = Field(None, description="1 to 100, default 25")
    after: str | None = Field(None, description="The `nextCursor` of the previous page")
    dir: str | None = Field(None, description="`asc` or `desc` (default)")


class PrintJobListQuery(PagingQuery):
    printerId: str | None = None
    computerId: str | None = None
    state: str | None = None
    createdFrom: str | None = Field(None, description="ISO 8601 with a zone; jobs created at or after")
    createdTo: str | None = Field(None, description="ISO 8601 with a zone; jobs created at or before")
