import uuid
from typing import TypedDict

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core.db.paging import DEFAULT_LIMIT, Page, PageRequest, page_info_to_proto
from printcloud.v1 import common_pb2


class _PageFields(TypedDict, total=False):
    limit: int
    after: str
    dir: str


def test_defaults_follow_the_spec() -> None:
    page = PageRequest.parse(None, None, None)
    assert (page.limit, page.after, page.dir) == (DEFAULT_LIMIT, None, "desc")
    assert DEFAULT_LIMIT == 25


@pytest.mark.parametrize("limit", ["1", "100", "25"])
def test_limits_inside_the_bounds_are_accepted(limit: str) -> None:
    assert PageRequest.parse(limit, None, None).limit == int(limit)


@pytest.mark.parametrize(
    ("limit", "after", "direction"),
    [
        ("0", None, None),
        ("101", None, None),
        ("-1", None, None),
        ("ten", None, None),
        (None, "", None),
        (None, "not-a-cursor", None),
        (None, None, "up"),
        (None, None, ""),
    ],
)
def test_bad_parameters_are_invalid_requests(limit: str | None, after: str | None, direction: str | None) -> None:
    with pytest.raises(ApiError) as raised:
        PageRequest.parse(limit, after, direction)
    assert raised.value.code == "invalid_request"
    assert raised.value.status == 400


def test_after_round_trips_through_proto_fields() -> None:
    cursor = uuid.uuid4()
    fields = PageRequest.parse("10", str(cursor), "asc").to_proto_fields()
    assert fields == {"limit": 10, "dir": "asc", "after": str(cursor)}


def test_a_proto_page_left_empty_takes_the_defaults() -> None:
    page = PageRequest.from_proto(common_pb2.PageRequest())
    assert (page.limit, page.after, page.dir) == (DEFAULT_LIMIT, None, "desc")


def test_a_proto_page_round_trips() -> None:
    cursor = uuid.uuid4()
    sent = PageRequest(limit=7, after=cursor, dir="asc")
    assert PageRequest.from_proto(common_pb2.PageRequest(**sent.to_proto_fields())) == sent


@pytest.mark.parametrize(
    "fields",
    [
        {"limit": 101},
        {"limit": -1},
        {"after": ""},
        {"after": "not-a-cursor"},
        {"dir": "sideways"},
    ],
)
def test_bad_proto_pages_are_invalid_requests(fields: _PageFields) -> None:
    """A service checks what its caller sent as the gateway checks the query string."""
    with pytest.raises(ApiError) as raised:
        PageRequest.from_proto(common_pb2.PageRequest(**fields))
    assert raised.value.code == "invalid_request"


def test_page_info_carries_the_cursor_only_when_there_is_one() -> None:
    assert page_info_to_proto(Page([], False, None)) == common_pb2.PageInfo(has_more=False)
    assert page_info_to_proto(Page([1], True, "c")) == common_pb2.PageInfo(has_more=True, next_cursor="c")
