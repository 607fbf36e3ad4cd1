"""Pages every list RPC must refuse with `400 invalid_request`: each service checks a page as the
gateway checks the query string, without counting on its caller (`core.db.paging.PageRequest.from_proto`)."""

from __future__ import annotations

import pytest

from printcloud.v1 import common_pb2

bad_pages = pytest.mark.parametrize(
    "page",
    [
        common_pb2.PageRequest(after="not-a-cursor"),
        common_pb2.PageRequest(after=""),
        common_pb2.PageRequest(limit=500),
        common_pb2.PageRequest(limit=-1),
        common_pb2.PageRequest(dir="sideways"),
    ],
    ids=["cursor", "empty-cursor", "limit-too-high", "negative-limit", "dir"],
)
