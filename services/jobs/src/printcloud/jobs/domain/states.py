"""The print job state machine of the spec ("States and transitions"), and who may set each state.

A resend (`sent` again while `sent`) is not a transition: it changes no state and records nothing.
"""

from __future__ import annotations

from printcloud.contracts.enums import CANCELLABLE_JOB_STATES, TERMINAL_JOB_STATES, Actor, JobState

# The public states, as the text the database stores.
QUEUED = JobState.queued.value
SENT = JobState.sent.value
RECEIVED = JobState.received.value
PRINTING = JobState.printing.value
DONE = JobState.done.value
ERROR = JobState.error.value
CANCELLED = JobState.cancelled.value
EXPIRED = JobState.expired.value

STATES: tuple[str, ...] = tuple(state.value for state in JobState)
TERMINAL_STATES: frozenset[str] = frozenset(state.value for state in TERMINAL_JOB_STATES)
# Jobs still in progress; the index print_jobs_active_by_state (migration 0011) holds exactly these.
ACTIVE_STATES: tuple[str, ...] = tuple(state for state in STATES if state not in TERMINAL_STATES)
INITIAL_STATE = QUEUED

# What an agent may report; the rest are set by the API, users or the system.
AGENT_REPORTED_STATES: tuple[str, ...] = (RECEIVED, PRINTING, DONE, ERROR)

_TRANSITIONS: dict[tuple[str, str], frozenset[Actor]] = {
    (QUEUED, SENT): frozenset({Actor.api, Actor.system}),
    (SENT, RECEIVED): frozenset({Actor.agent}),
    # No acknowledgement after the last resend: the job waits for the computer again.
    (SENT, QUEUED): frozenset({Actor.system}),
    (RECEIVED, PRINTING): frozenset({Actor.agent}),
    (PRINTING, DONE): frozenset({Actor.agent}),
    # Dashboard owners cancel as `user`, API keys as `api`.
    **{(state.value, CANCELLED): frozenset({Actor.api, Actor.user}) for state in CANCELLABLE_JOB_STATES},
    (QUEUED, EXPIRED): frozenset({Actor.system}),
    (SENT, EXPIRED): frozenset({Actor.system}),
    **{(state, ERROR): frozenset({Actor.agent, Actor.system}) for state in STATES if state not in TERMINAL_STATES},
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
