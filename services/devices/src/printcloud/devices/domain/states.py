"""Computer and printer states and the rules that move them.

A computer is `online` while its agent holds a connection, `offline` otherwise, and `disabled`
whatever the connection while an administrator has disabled it. A printer is `online` only when
its computer is online and the spooler reports it ready; otherwise it is `offline` and
`stateDetail` says why. Its `stateReasons` are what its agent reports while connected; a computer
that is not online leaves its printers none, as nobody can tell what they are now.
"""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.protocol.printer_reasons import described

COMPUTER_ONLINE = "online"
COMPUTER_OFFLINE = "offline"
COMPUTER_DISABLED = "disabled"

PRINTER_ONLINE = "online"
PRINTER_OFFLINE = "offline"
PRINTER_STATES = (PRINTER_ONLINE, PRINTER_OFFLINE)

DETAIL_COMPUTER_OFFLINE = "Computer is offline"
DETAIL_COMPUTER_DISABLED = "Computer is disabled"
DETAIL_SPOOLER_STOPPED = "Spooler reports the printer stopped or unreachable"


def computer_state_when_connected(disabled: bool) -> str:
    return COMPUTER_DISABLED if disabled else COMPUTER_ONLINE


def computer_state_when_disconnected(disabled: bool) -> str:
    return COMPUTER_DISABLED if disabled else COMPUTER_OFFLINE


def computer_event_type(before: str, after: str) -> str | None:
    """`computer.online` when the computer became online; `computer.offline` when it stopped being
    online, whether its agent left or it was disabled (its agent is then disconnected at once)."""
    if before == after:
        return None
    if after == COMPUTER_ONLINE:
        return "computer.online"
    if before == COMPUTER_ONLINE:
        return "computer.offline"
    return None


def computer_state_when_switched(enabled: bool) -> str:
    """A disabled computer has no agent connection; a re-enabled one is offline until its agent
    connects again (the agent keeps retrying while refused)."""
    return COMPUTER_OFFLINE if enabled else COMPUTER_DISABLED


def disconnect_applies(current_gateway: str | None, reporting_gateway: str) -> bool:
    """Only the replica holding the connection may end it: a late disconnect from a replica the
    agent already left must not undo its reconnect elsewhere."""
    return current_gateway is not None and current_gateway == reporting_gateway


@dataclass(frozen=True)
class PrinterCondition:
    """A printer's `state`, `stateReasons` (normalised keywords, sorted) and `stateDetail`."""

    state: str
    reasons: tuple[str, ...]
    detail: str

    def differs_from(self, state: str, reasons: tuple[str, ...], detail: str) -> bool:
        return (self.state, self.reasons, self.detail) != (state, reasons, detail)


def printer_condition(computer_state: str, reported: PrinterCondition) -> PrinterCondition:
    """A printer's condition given its computer's state and what its spooler reports."""
    if computer_state == COMPUTER_DISABLED:
        return PrinterCondition(PRINTER_OFFLINE, (), DETAIL_COMPUTER_DISABLED)
    if computer_state != COMPUTER_ONLINE:
        return PrinterCondition(PRINTER_OFFLINE, (), DETAIL_COMPUTER_OFFLINE)
    # An agent that names reasons without a sentence still gets one.
    detail = reported.detail or (f"The printer reports {described(reported.reasons)}" if reported.reasons else "")
    if reported.state == PRINTER_ONLINE:
        return PrinterCondition(PRINTER_ONLINE, reported.reasons, detail)
    return PrinterCondition(PRINTER_OFFLINE, reported.reasons, detail or DETAIL_SPOOLER_STOPPED)
