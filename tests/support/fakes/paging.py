"""The paging rules of `printcloud.core.db.paging` over a list in memory: the same checks, order and
cursors as the keyset query the services run."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, TypeVar

from printcloud.core.db.paging import PageRequest
from printcloud.v1 import common_pb2

Item = TypeVar("Item")


def page_of(items: Sequence[Item], request: common_pb2.PageRequest) -> tuple[list[Item], common_pb2.PageInfo]:
    """`items` carry an `id` (UUIDv7, creation order); a bad page is `400 invalid_request`."""
    page = PageRequest.from_proto(request)
    ordered = sorted(items, key=lambda item: uuid.UUID(_id(item)), reverse=page.dir == "desc")
    if page.after is not None:
        after = page.after
        ordered = [
            i for i in ordered if (uuid.UUID(_id(i)) > after if page.dir == "asc" else uuid.UUID(_id(i)) < after)
        ]
    chosen = ordered[: page.limit]
    info = common_pb2.PageInfo(has_more=len(ordered) > page.limit)
    if chosen:
        info.next_cursor = _id(chosen[-1])
    elif page.after is not None:
        info.next_cursor = str(page.after)
    return chosen, info


def _id(item: Any) -> str:
    return str(item.id)
