"""The job state machine against the spec's transition table and its "who sets states" rule."""

from __future__ import annotations

import pytest

from printcloud.jobs.domain import states
from printcloud.jobs.domain.states import Actor

ALLOWED = [
    (states.QUEUED, states.SENT, Actor.API),
    (states.QUEUED, states.SENT, Actor.SYSTEM),
    (states.SENT, states.RECEIVED, Actor.AGENT),
    (states.SENT, states.QUEUED, Actor.SYSTEM),
    (states.RECEIVED, states.PRINTING, Actor.AGENT),
    (states.PRINTING, states.DONE, Actor.AGENT),
    (states.PRINTING, states.ERROR, Actor.SYSTEM),
    (states.QUEUED, states.CANCELLED, Actor.API),
    (states.SENT, states.CANCELLED, Actor.USER),
    (states.QUEUED, states.EXPIRED, Actor.SYSTEM),
    (states.SENT, states.EXPIRED, Actor.SYSTEM),
]

REFUSED = [
    # Agents only report what happened on their computer.
    (states.QUEUED, states.SENT, Actor.AGENT),
    (states.SENT, states.CANCELLED, Actor.AGENT),
    (states.SENT, states.EXPIRED, Actor.AGENT),
    # Only agents acknowledge, print and finish.
    (states.SENT, states.RECEIVED, Actor.SYSTEM),
    (states.PRINTING, states.DONE, Actor.API),
    # Steps cannot be skipped.
    (states.SENT, states.PRINTING, Actor.AGENT),
    (states.SENT, states.DONE, Actor.AGENT),
    (states.QUEUED, states.RECEIVED, Actor.AGENT),
    # Once the agent has it, it cannot be cancelled or expire.
    (states.RECEIVED, states.CANCELLED, Actor.API),
    (states.PRINTING, states.CANCELLED, Actor.API),
    (states.RECEIVED, states.EXPIRED, Actor.SYSTEM),
    # The API never reports errors.
    (states.QUEUED, states.ERROR, Actor.API),
]


@pytest.mark.parametrize(("current", "target", "actor"), ALLOWED)
def test_spec_transitions_are_allowed(current: str, target: str, actor: Actor) -> None:
    assert states.may_transition(current, target, actor)


@pytest.mark.parametrize(("current", "target", "actor"), REFUSED)
def test_other_transitions_are_refused(current: str, target: str, actor: Actor) -> None:
    assert not states.may_transition(current, target, actor)


@pytest.mark.parametrize("current", [s for s in states.STATES if s not in states.TERMINAL_STATES])
@pytest.mark.parametrize("actor", [Actor.AGENT, Actor.SYSTEM])
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
