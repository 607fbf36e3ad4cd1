"""Newer and older pages of a list endpoint. The API pages forward from a cursor in either
direction; a newer page is the page after the current page's first item, read oldest first
(`dir=asc`) and shown newest first, like every page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from printcloud.api_gateway.transport.dashboard.api_client import ApiClient
from printcloud.contracts.resources import Page

# A list answer as the dashboard reads it: typed envelope, items left as the JSON they are.
ListPage = Page[dict[str, Any]]


@dataclass(frozen=True)
class Pager:
    newer: str | None = None  # the `before` cursor of the newer page
    older: str | None = None  # the `after` cursor of the older page

    def links(self, base: str, query: dict[str, str]) -> dict[str, str]:
        """The URLs of the newer and older pages, keeping the filters in `query`."""
        kept = {name: value for name, value in query.items() if value}
        shown = {}
        if self.newer:
            shown["newer"] = f"{base}?{urlencode({**kept, 'before': self.newer})}"
        if self.older:
            shown["older"] = f"{base}?{urlencode({**kept, 'after': self.older})}"
        return shown


def pager_for(ids: list[str], has_more: bool, *, after: str, before: str) -> Pager:
    """The links around a page shown newest first (`ids` in that order), read after `after` going
    back, or before `before` going forward (`has_more`: the API had more in that direction)."""
    if not ids:
        return Pager()
    if before:
        return Pager(newer=ids[0] if has_more else None, older=ids[-1])
    return Pager(newer=ids[0] if after else None, older=ids[-1] if has_more else None)


async def page_of(
    api: ApiClient, path: str, filters: dict[str, str], after: str, before: str, limit: int
) -> tuple[list[dict[str, Any]], Pager]:
    """One page, newest first: after `after` (older), before `before` (newer), or the newest."""
    if before:
        page = ListPage.model_validate(await api.get(path, limit=limit, dir="asc", after=before, **filters))
        items = list(reversed(page.data))
    else:
        page = ListPage.model_validate(await api.get(path, limit=limit, after=after, **filters))
        items = page.data
    return items, pager_for([item["id"] for item in items], page.hasMore, after=after, before=before)
