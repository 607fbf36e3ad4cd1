"""The one implementation of the spec's paging rules for every list endpoint.

Cursors are item ids (UUIDv7, so id order is creation order). `nextCursor` is the id of the last
item returned, even on the final page; on an empty page it echoes the `after` sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Integer, Select, bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.errors import invalid
from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import Page as PublicPage
from printcloud.core.db.compiled_reads import CompiledRead, Fields
from printcloud.core.db.database import Database
from printcloud.core.ids import parse_uuid
from printcloud.v1 import common_pb2

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
DIRECTIONS = ("asc", "desc")
_NEXT_CURSOR = public_name(PublicPage, lambda page: page.nextCursor)
_LIMIT_RULE = f"`limit` must be an integer from 1 to {MAX_LIMIT}."

T = TypeVar("T")


@dataclass(frozen=True)
class PageRequest:
    limit: int = DEFAULT_LIMIT
    after: uuid.UUID | None = None
    dir: str = "desc"

    @classmethod
    def parse(cls, limit: str | None, after: str | None, dir: str | None) -> PageRequest:
        """Validates raw query parameters; raises `400 invalid_request` with the reason."""
        if limit is None:
            parsed_limit = DEFAULT_LIMIT
        else:
            try:
                parsed_limit = int(limit)
            except ValueError:
                raise invalid(_LIMIT_RULE) from None
        return cls(_checked_limit(parsed_limit), _checked_after(after), _checked_dir(dir))

    @classmethod
    def from_proto(cls, page: common_pb2.PageRequest) -> PageRequest:
        """The same checks on a service's edge as `parse` on the gateway's: a service never trusts
        its caller to have checked (a raw cursor reaching `fetch_page` would be a 500)."""
        after = page.after if page.HasField("after") else None
        return cls(_checked_limit(page.limit or DEFAULT_LIMIT), _checked_after(after), _checked_dir(page.dir or None))

    def to_proto_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"limit": self.limit, "dir": self.dir}
        if self.after is not None:
            fields["after"] = str(self.after)
        return fields


def _checked_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise invalid(_LIMIT_RULE)
    return limit


def _checked_after(after: str | None) -> uuid.UUID | None:
    if after is None:
        return None
    if after == "":
        raise invalid("`after` must not be empty; omit it to start from the beginning.")
    parsed = parse_uuid(after)
    if parsed is None:
        raise invalid(f"`after` must be the `{_NEXT_CURSOR}` of a previous page.")
    return parsed


def _checked_dir(direction: str | None) -> str:
    if direction is None:
        return "desc"
    if direction not in DIRECTIONS:
        raise invalid("`dir` must be `asc` or `desc`.")
    return direction


@dataclass(frozen=True)
class Page(Generic[T]):
    items: Sequence[T]
    has_more: bool
    next_cursor: str | None


def _paged(query: Select[Any], id_column: Any, direction: str, after: Any, limit: Any) -> Select[Any]:
    if after is not None:
        query = query.where(id_column > after if direction == "asc" else id_column < after)
    return query.order_by(id_column.asc() if direction == "asc" else id_column.desc()).limit(limit)


def _page_of(rows: list[Any], id_key: str, page: PageRequest) -> Page[Any]:
    """A page of the rows read, at most one more than the limit, the extra one saying there is more."""
    has_more = len(rows) > page.limit
    rows = rows[: page.limit]
    if rows:
        next_cursor: str | None = str(getattr(rows[-1], id_key))
    else:
        next_cursor = str(page.after) if page.after is not None else None
    return Page(rows, has_more, next_cursor)


async def fetch_page(session: AsyncSession, query: Select[Any], id_column: Any, page: PageRequest) -> Page[Any]:
    """Runs `query` (already scoped and filtered) as one keyset page ordered by `id_column`."""
    query = _paged(query, id_column, page.dir, page.after, page.limit + 1)
    return _page_of(list((await session.execute(query)).scalars().all()), id_column.key, page)


class PagedRead:
    """The same page of a compiled read (`core.db.compiled_reads`, for the hottest lists): `query`
    compiled once for each direction, with a cursor and without. Its values are named bindparams."""

    def __init__(self, query: Select[Any], id_column: Any) -> None:
        self._id_key: str = id_column.key
        limit = bindparam("page_limit", type_=Integer)
        self._reads = {
            (direction, with_cursor): CompiledRead.of(
                _paged(query, id_column, direction, bindparam("page_after") if with_cursor else None, limit)
            )
            for direction in DIRECTIONS
            for with_cursor in (False, True)
        }

    async def fetch(self, db: Database, page: PageRequest, **values: Any) -> Page[Fields]:
        read = self._reads[(page.dir, page.after is not None)]
        if page.after is not None:
            values["page_after"] = page.after
        return _page_of(await db.fetch(read, page_limit=page.limit + 1, **values), self._id_key, page)


def page_info_to_proto(page: Page[Any]) -> common_pb2.PageInfo:
    info = common_pb2.PageInfo(has_more=page.has_more)
    if page.next_cursor is not None:
        info.next_cursor = page.next_cursor
    return info
