import uuid

import pytest

from printcloud.core.errors import ApiError
from printcloud.core.paging import DEFAULT_LIMIT, PageRequest


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
