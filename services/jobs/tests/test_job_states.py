"""The job state machine against the spec's transition table and its "who sets states" rule."""

from __future__ import annotations

import pytest

from printcloud.contracts.enums import Actor
from printcloud.jobs.domain import states

ALLOWED = [
    (states.QUEUED, states.SENT, Actor.api),
    (states.QUEUED, states.SENT, Actor.system),
    (states.SENT, states.RECEIVED, Actor.agent),
    (states.SENT, states.QUEUED, Actor.system),
    (states.RECEIVED, states.PRINTING, Actor.agent),
    (states.PRINTING, states.DONE, Actor.agent),
    (states.PRINTING, states.ERROR, Actor.system),
    (states.QUEUED, states.CANCELLED, Actor.api),
    (states.SENT, states.CANCELLED, Actor.user),
    (states.QUEUED, states.EXPIRED, Actor.system),
    (states.SENT, states.EXPIRED, Actor.system),
]

REFUSED = [
    # Agents only report what happened on their computer.
    (states.QUEUED, states.SENT, Actor.agent),
    (states.SENT, states.CANCELLED, Actor.agent),
    (states.SENT, states.EXPIRED, Actor.agent),
    # Only agents acknowledge, print and finish.
    (states.SENT, states.RECEIVED, Actor.system),
    (states.PRINTING, states.DONE, Actor.api),
    # Steps cannot be skipped.
    (states.SENT, states.PRINTING, Actor.agent),
    (states.SENT, states.DONE, Actor.agent),
    (states.QUEUED, states.RECEIVED, Actor.agent),
    # Once the agent has it, it cannot be cancelled or expire.
    (states.RECEIVED, states.CANCELLED, Actor.api),
    (states.PRINTING, states.CANCELLED, Actor.api),
    (states.RECEIVED, states.EXPIRED, Actor.system),
    # The API never reports errors.
    (states.QUEUED, states.ERROR, Actor.api),
]


@pytest.mark.parametrize(("current", "target", "actor"), ALLOWED)
def test_spec_transitions_are_allowed(current: str, target: str, actor: Actor) -> None:
    assert states.may_transition(current, target, actor)


@pytest.mark.parametrize(("current", "target", "actor"), REFUSED)
def test_other_transitions_are_refused(current: str, target: str, actor: Actor) -> None:
    assert not states.may_transition(current, target, actor)


@pytest.mark.parametrize("current", [s for s in states.STATES if s not in states.TERMINAL_STATES])
@pytest.mark.parametrize("actor", [Actor.agent, Actor.system])
def test_any_non_terminal_state_can_fail(current: str, actor: Actor) -> None:
    assert states.may_transition(current, states.ERROR, actor)


@pytest.mark.parametrize("current", sorted(states.TERMINAL_STATES))
def test_terminal_states_have_no_way_out(current: str) -> None:
    assert states.is_terminal(current)
    assert not any(states.may_transition(current, target, actor) for target in states.STATES for actor in Actor)


def test_non_terminal_states() -> None:
    assert not any(states.is_terminal(s) for s in (states.QUEUED, states.SENT, states.RECEIVED, states.PRINTING))


@pytest.mark.parametrize(
    ("state", "field"),
    [
        (states.QUEUED, None),
        (states.SENT, "sent_at"),
        (states.RECEIVED, "received_at"),
        (states.PRINTING, "printing_at"),
        (states.DONE, "finished_at"),
        (states.ERROR, "finished_at"),
        (states.CANCELLED, "finished_at"),
        (states.EXPIRED, "finished_at"),
    ],
)
def test_timestamp_field_of_each_state(state: str, field: str | None) -> None:
    assert states.timestamp_field(state) == field
