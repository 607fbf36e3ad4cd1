import time
import uuid

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core.ids import parse_uuid, resource_id, uuid7, uuid_field


def test_uuid7_has_version_7_and_the_rfc_variant() -> None:
    value = uuid7()
    assert value.version == 7
    assert value.variant == uuid.RFC_4122


def test_uuid7_carries_the_current_unix_milliseconds() -> None:
    before = time.time_ns() // 1_000_000
    value = uuid7()
    after = time.time_ns() // 1_000_000
    assert before <= value.int >> 80 <= after


def test_uuid7_strictly_increases_within_a_process_even_in_one_millisecond() -> None:
    ids = [uuid7() for _ in range(50_000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_parse_uuid_accepts_uuids_only() -> None:
    value = uuid7()
    assert parse_uuid(str(value)) == value
    assert parse_uuid("not-a-uuid") is None
    assert parse_uuid("") is None


def test_an_addressed_id_that_is_not_a_uuid_is_not_found() -> None:
    value = uuid7()
    assert resource_id(str(value), "printer") == value
    with pytest.raises(ApiError) as raised:
        resource_id("not-a-uuid", "printer")
    assert (raised.value.code, raised.value.message) == ("not_found", "No such printer.")


def test_a_stated_id_that_is_not_a_uuid_is_an_invalid_request() -> None:
    value = uuid7()
    assert uuid_field(str(value), "printerId") == value
    with pytest.raises(ApiError) as raised:
        uuid_field("", "printerId")
    assert raised.value.code == "invalid_request"
    assert "printerId" in raised.value.message
