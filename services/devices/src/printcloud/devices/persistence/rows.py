"""The rows persistence answers with, typed: a use case or a mapping that reads a column the row
does not have, or reads it as the wrong type, fails mypy instead of at run time.

Built from SQLAlchemy's rows and the compiled reads' `Fields` alike, by column name.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Self, TypeAlias, TypeVar

from sqlalchemy import Row

from printcloud.core.db.compiled_reads import Fields
from printcloud.core.db.paging import Page

T = TypeVar("T")
# A SQLAlchemy row of any columns.
AnyRow: TypeAlias = Row[*tuple[Any, ...]]


def _columns(row: AnyRow | Fields) -> dict[str, Any]:
    if isinstance(row, Row):
        return dict(row._mapping)
    return dict(row.items())


class _Typed:
    """A row's dataclass, made from a row by its columns' names."""

    __slots__ = ()

    @classmethod
    def of(cls, row: AnyRow | Fields) -> Self:
        return cls(**_columns(row))


@dataclass(frozen=True, slots=True)
class ComputerRow(_Typed):
    id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    name: str
    hostname: str
    os: str
    os_version: str
    arch: str
    agent_version: str
    state: str
    is_virtual: bool
    disabled: bool
    deleted_at: datetime | None
    gateway_instance: str | None
    created_at: datetime
    last_seen_at: datetime | None


@dataclass(frozen=True, slots=True)
class PrinterRow(_Typed):
    """A printer with what the public shape needs of its computer (`computer_os`,
    `computer_is_virtual`)."""

    id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    computer_id: uuid.UUID
    name: str
    os_name: str
    description: str
    display_name: str
    remarks: str | None
    enabled: bool
    is_default: bool
    state: str
    state_detail: str
    state_reasons: list[str]
    capabilities: dict[str, Any]
    default_options: dict[str, Any]
    custom_papers: list[dict[str, Any]]
    removed_at: datetime | None
    created_at: datetime
    updated_at: datetime
    computer_os: str
    computer_is_virtual: bool


@dataclass(frozen=True, slots=True)
class AgentRow(_Typed):
    """The computer a live credential names."""

    computer_id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    disabled: bool


@dataclass(frozen=True, slots=True)
class PairingCodeRow(_Typed):
    id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    lookup_key: str
    hint: str
    description: str
    max_uses: int
    uses: int
    expires_at: datetime
    revoked_at: datetime | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RedeemedCode(_Typed):
    """The code whose use an enrolment took, and the tenant it enrols into."""

    id: uuid.UUID
    organization_id: uuid.UUID
    mode: str


@dataclass(frozen=True, slots=True)
class EnrollmentRow(_Typed):
    id: uuid.UUID
    pairing_code_id: uuid.UUID
    computer_id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    name: str
    hostname: str
    client_address: str
    enrolled_at: datetime


def page_of(page: Page[Any], row: Callable[[Any], T]) -> Page[T]:
    """`page` with each item made a typed row."""
    return Page([row(item) for item in page.items], page.has_more, page.next_cursor)
