"""What jobs knows of each printer's condition, learnt from devices' `printer.*` events, and the
note a job waiting on a printer that cannot print carries in its `stateMessage`.

The note is read, not stored: it joins the job's own `stateMessage` while the job is not finished
and its printer reports a reason that stops printing (or is offline), and is gone as soon as the
printer recovers or the job ends. The job's state machine never sees it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from printcloud.core.scope import Scope
from printcloud.jobs.domain.states import is_terminal
from printcloud.protocol.printer_reasons import blocking, named_with_text

OFFLINE = "offline"
# Kept for a printer devices removed, so that an older event delivered late cannot bring it back.
REMOVED = "removed"


@dataclass(frozen=True)
class PrinterCondition:
    state: str
    reasons: tuple[str, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class PrinterConditionChange:
    """One `printer.*` event as the read model takes it."""

    message_id: uuid.UUID
    scope: Scope
    printer_id: uuid.UUID
    at: datetime
    condition: PrinterCondition


def latest_per_printer(changes: Iterable[PrinterConditionChange]) -> list[PrinterConditionChange]:
    """The last change of each printer among changes given oldest first (one partition's order)."""
    latest: dict[uuid.UUID, PrinterConditionChange] = {}
    for change in changes:
        known = latest.get(change.printer_id)
        if known is None or known.at <= change.at:
            latest[change.printer_id] = change
    return list(latest.values())


def waiting_note(job_state: str, condition: PrinterCondition | None) -> str | None:
    """Why a job not yet finished is waiting on its printer, or None when nothing is known to stop it."""
    if condition is None or is_terminal(job_state):
        return None
    stopping = blocking(condition.reasons)
    if stopping:
        return f"Waiting: the printer reports {named_with_text(stopping)}"
    if condition.state == OFFLINE:
        return "Waiting: the printer is offline" + (f" ({condition.detail})" if condition.detail else "")
    return None


def printers_to_ask(jobs: Sequence[tuple[str, uuid.UUID]]) -> set[uuid.UUID]:
    """The printers whose condition matters for (state, printer id) of some jobs: unfinished ones'."""
    return {printer_id for state, printer_id in jobs if not is_terminal(state)}
