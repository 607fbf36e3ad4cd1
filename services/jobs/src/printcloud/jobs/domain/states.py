"""The print job state machine of the spec ("States and transitions"), and who may set each state.

A resend (`sent` again while `sent`) is not a transition: it changes no state and records nothing.
"""

from __future__ import annotations

from enum import StrEnum


class Actor(StrEnum):
    API = "api"
    USER = "user"
    AGENT = "agent"
    SYSTEM = "system"


QUEUED = "queued"
SENT = "sent"
RECEIVED = "received"
PRINTING = "printing"
DONE = "done"
ERROR = "error"
CANCELLED = "cancelled"
EXPIRED = "expired"

STATES: tuple[str, ...] = (QUEUED, SENT, RECEIVED, PRINTING, DONE, ERROR, CANCELLED, EXPIRED)
TERMINAL_STATES: frozenset[str] = frozenset({DONE, ERROR, CANCELLED, EXPIRED})
# Jobs still in progress; the index print_jobs_active_by_state (migration 0011) holds exactly these.
ACTIVE_STATES: tuple[str, ...] = tuple(state for state in STATES if state not in TERMINAL_STATES)
INITIAL_STATE = QUEUED

# What an agent may report; the rest are set by the API, users or the system.
AGENT_REPORTED_STATES: tuple[str, ...] = (RECEIVED, PRINTING, DONE, ERROR)

_TRANSITIONS: dict[tuple[str, str], frozenset[Actor]] = {
    (QUEUED, SENT): frozenset({Actor.API, Actor.SYSTEM}),
    (SENT, RECEIVED): frozenset({Actor.AGENT}),
    # No acknowledgement after the last resend: the job waits for the computer again.
    (SENT, QUEUED): frozenset({Actor.SYSTEM}),
    (RECEIVED, PRINTING): frozenset({Actor.AGENT}),
    (PRINTING, DONE): frozenset({Actor.AGENT}),
    # Dashboard owners cancel as `user`, API keys as `api`.
    (QUEUED, CANCELLED): frozenset({Actor.API, Actor.USER}),
    (SENT, CANCELLED): frozenset({Actor.API, Actor.USER}),
    (QUEUED, EXPIRED): frozenset({Actor.SYSTEM}),
    (SENT, EXPIRED): frozenset({Actor.SYSTEM}),
    **{(state, ERROR): frozenset({Actor.AGENT, Actor.SYSTEM}) for state in STATES if state not in TERMINAL_STATES},
}


def is_terminal(state: str) -> bool:
    return state in TERMINAL_STATES


def may_transition(current: str, target: str, actor: Actor) -> bool:
    """Whether `actor` may move a job from `current` to `target`."""
    return actor in _TRANSITIONS.get((current, target), frozenset())


def timestamp_field(state: str) -> str | None:
    """The job field recording when it entered `state` (`createdAt` is set on creation)."""
    if state in TERMINAL_STATES:
        return "finished_at"
    return {SENT: "sent_at", RECEIVED: "received_at", PRINTING: "printing_at"}.get(state)
