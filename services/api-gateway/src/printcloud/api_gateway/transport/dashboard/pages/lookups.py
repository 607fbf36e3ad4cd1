"""Reads several pages need: every printer or computer of the mode, by id, for names in lists."""

from __future__ import annotations

from typing import Any

from printcloud.api_gateway.transport.dashboard.api_client import ApiClient
from printcloud.api_gateway.transport.dashboard.paging import ListPage

# Names in lists come from at most this many printers (or computers); a fleet larger than that
# shows the others as "removed printer" rather than making each page read for ever.
MAX_LISTED = 1000
_PAGE = 100


async def every(api: ApiClient, path: str) -> list[dict[str, Any]]:
    """Every item of a list endpoint, oldest first, up to MAX_LISTED."""
    items: list[dict[str, Any]] = []
    after = ""
    while len(items) < MAX_LISTED:
        page = ListPage.model_validate(await api.get(path, limit=_PAGE, dir="asc", after=after))
        items.extend(page.data)
        if not page.hasMore or page.nextCursor is None:
            break
        after = page.nextCursor
    return items


async def printers_by_id(api: ApiClient) -> dict[str, dict[str, Any]]:
    return {printer["id"]: printer for printer in await every(api, "/v1/printers")}


async def computers_by_id(api: ApiClient) -> dict[str, dict[str, Any]]:
    return {computer["id"]: computer for computer in await every(api, "/v1/computers")}
