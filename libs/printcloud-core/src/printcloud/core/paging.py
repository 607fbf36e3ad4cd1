"""The one implementation of the spec's paging rules for every list endpoint.

Cursors are item ids (UUIDv7, so id order is creation order). `nextCursor` is the id of the last
item returned, even on the final page; on an empty page it echoes the `after` sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.errors import ApiError

DEFAULT_LIMIT = 25
MAX_LIMIT = 100

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
                raise ApiError("invalid_request", "`limit` must be an integer from 1 to 100.") from None
            if not 1 <= parsed_limit <= MAX_LIMIT:
                raise ApiError("invalid_request", "`limit` must be an integer from 1 to 100.")
        parsed_after = None
        if after is not None:
            if after == "":
                raise ApiError("invalid_request", "`after` must not be empty; omit it to start from the beginning.")
            try:
                parsed_after = uuid.UUID(after)
            except ValueError:
                raise ApiError("invalid_request", "`after` must be the `nextCursor` of a previous page.") from None
        direction = dir if dir is not None else "desc"
        if direction not in ("asc", "desc"):
            raise ApiError("invalid_request", "`dir` must be `asc` or `desc`.")
        return cls(parsed_limit, parsed_after, direction)

    @classmethod
    def from_proto(cls, page: Any) -> PageRequest:
        after = uuid.UUID(page.after) if page.HasField("after") else None
        return cls(page.limit or DEFAULT_LIMIT, after, page.dir or "desc")

    def to_proto_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"limit": self.limit, "dir": self.dir}
        if self.after is not None:
            fields["after"] = str(self.after)
        return fields


@dataclass(frozen=True)
class Page(Generic[T]):
    items: Sequence[T]
    has_more: bool
    next_cursor: str | None


async def fetch_page(session: AsyncSession, query: Select[Any], id_column: Any, page: PageRequest) -> Page[Any]:
    """Runs `query` (already scoped and filtered) as one keyset page ordered by `id_column`."""
    if page.after is not None:
        query = query.where(id_column > page.after if page.dir == "asc" else id_column < page.after)
    query = query.order_by(id_column.asc() if page.dir == "asc" else id_column.desc()).limit(page.limit + 1)
    rows = list((await session.execute(query)).scalars().all())
    has_more = len(rows) > page.limit
    rows = rows[: page.limit]
    if rows:
        next_cursor: str | None = str(getattr(rows[-1], id_column.key))
    else:
        next_cursor = str(page.after) if page.after is not None else None
    return Page(rows, has_more, next_cursor)


def page_info_fields(page: Page[Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {"has_more": page.has_more}
    if page.next_cursor is not None:
        fields["next_cursor"] = page.next_cursor
    return fields
