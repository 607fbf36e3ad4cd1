"""Messages made from values by field name: the wire's forms, given fields, and a message field
the value's type lacks refused when the pairing is made."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

import pytest

from printcloud.core.rpc.by_name import ByName
from printcloud.v1 import devices_pb2, jobs_pb2


@dataclass
class Change:
    id: uuid.UUID
    state: str
    message: str | None
    actor: str
    created_at: datetime


@dataclass
class Report:
    name: str
    os_name: str
    description: str
    is_default: bool
    state: str
    state_detail: str
    state_reasons: list[str]
    capabilities: dict[str, Any]
    default_options: dict[str, Any]


CHANGE = ByName(jobs_pb2.JobStateChange, (field.name for field in fields(Change)), "Change")
REPORT = ByName(devices_pb2.PrinterReport, (field.name for field in fields(Report)), "Report")
WHEN = datetime(2026, 11, 26, 8, 0, 0, 250000, tzinfo=UTC)


def test_ids_and_times_go_as_text() -> None:
    change = Change(uuid.uuid4(), "done", "Printed", "agent", WHEN)
    message = CHANGE.message(change)
    assert (message.id, message.created_at, message.message) == (str(change.id), "2026-11-26T08:00:00.250Z", "Printed")


def test_json_fields_carry_their_value_as_json_and_lists_stay_lists() -> None:
    report = Report("q", "Q", "driver", True, "offline", "stopped", ["paused"], {"color": True}, {"paper": "A4"})
    message = REPORT.message(report)
    assert json.loads(message.capabilities_json) == {"color": True}
    assert json.loads(message.default_options_json) == {"paper": "A4"}
    assert list(message.state_reasons) == ["paused"] and message.is_default


def test_none_leaves_an_optional_field_unset_and_given_fields_win() -> None:
    change = Change(uuid.uuid4(), "queued", None, "api", WHEN)
    assert not CHANGE.message(change).HasField("message")
    assert CHANGE.message(change, message="by hand").message == "by hand"


def test_a_message_field_the_type_lacks_is_refused_when_paired() -> None:
    with pytest.raises(TypeError, match="JobStateChange fields with no counterpart on Less: actor"):
        ByName(jobs_pb2.JobStateChange, [f.name for f in fields(Change) if f.name != "actor"], "Less")
