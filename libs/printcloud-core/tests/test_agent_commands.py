from __future__ import annotations

import pytest
from pydantic import ValidationError

from printcloud.core.kafka.agent_commands import JOB_DELIVER, ComputerCommand, JobCommand, command
from printcloud.core.kafka.envelope import Message


def test_a_command_travels_in_the_protocol_s_names_and_leaves_out_what_is_unset() -> None:
    sent = command(JOB_DELIVER, "org", "live", JobCommand(computer_id="c", job_id="j"))
    assert (sent.type, sent.organization_id, sent.mode) == (JOB_DELIVER, "org", "live")
    assert sent.data == {"computerId": "c", "jobId": "j"}
    resend = command(JOB_DELIVER, "org", "live", JobCommand(computer_id="c", job_id="j", resend_of=2))
    assert resend.data == {"computerId": "c", "jobId": "j", "resendOf": 2}
    received = Message.decode(resend.encode())
    assert JobCommand.model_validate(received.data) == JobCommand(computer_id="c", job_id="j", resend_of=2)


def test_a_reader_refuses_ids_that_are_no_text_and_reads_a_bad_count_as_none() -> None:
    with pytest.raises(ValidationError):
        ComputerCommand.model_validate({"computerId": 7})
    with pytest.raises(ValidationError):
        JobCommand.model_validate({"computerId": "c"})
    for count in ("2", 2.0, True, None):
        assert JobCommand.model_validate({"computerId": "c", "jobId": "j", "resendOf": count}).resend_of is None
    assert ComputerCommand.model_validate({"computerId": "c", "later": 1}).computer_id == "c"
