"""A CUPS queue's condition as the agent reports it (`state`, `stateReasons`, `stateDetail`): pure
functions over IPP attributes, no I/O.

cupsd knows what its queue is doing (stopped by an administrator, rejecting jobs) but learns about
the device only while a job talks to it: it copies the device's reasons during the job and forgets
them after, and an idle queue whose printer is switched off still says `idle`. So for an IPP
Everywhere queue the device is asked as well (`connection.ask_device`), and what it says joins
what cupsd says.

IPP `printer-state` maps to the public `state`: `idle` and `processing` are `online`, `stopped` is
`offline`; so are a queue rejecting jobs, a device that does not answer, and the reasons that mean
the printer cannot be reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from printcloud.agent.backends.cups.ipp import Attributes, first_value
from printcloud.protocol.printer_reasons import OFFLINE, PAUSED, described, normalised_reasons

PRINTER_STOPPED = 5
ONLINE = "online"
OFFLINE_STATE = "offline"
# Reasons that mean the device cannot be reached, whatever the queue's state.
UNREACHABLE_REASONS = frozenset({OFFLINE, "connecting-to-device", "timed-out"})
# cupsd sets it at the end of every job for a moment: reporting it would report every job.
TRANSIENT_REASONS = frozenset({"cups-waiting-for-job-completed"})
STATE_ATTRIBUTES = ("printer-state", "printer-state-reasons", "printer-state-message")


@dataclass(frozen=True)
class DeviceStatus:
    """What an IPP Everywhere queue's device said when last asked: its state attributes, or why it
    did not answer. `where` is its host and port (never the URI, which may hold credentials)."""

    where: str
    attributes: Attributes = field(default_factory=dict)
    failure: str | None = None


@dataclass(frozen=True)
class Condition:
    state: str
    reasons: list[str]
    detail: str


def _text(attrs: Attributes, name: str) -> str:
    value = first_value(attrs, name, "")
    return value.strip() if isinstance(value, str) else ""


def _reasons(attrs: Attributes) -> set[str]:
    keywords = [value for value in attrs.get("printer-state-reasons", []) if isinstance(value, str)]
    return set(normalised_reasons(keywords)) - TRANSIENT_REASONS


def printer_condition(queue: Attributes, device: DeviceStatus | None = None) -> Condition:
    """The condition of a queue from cupsd's attributes and, when it was asked, its device's."""
    name = _text(queue, "printer-name")
    message = _text(queue, "printer-state-message")
    reasons = _reasons(queue)
    stopped = first_value(queue, "printer-state") == PRINTER_STOPPED
    offline = stopped
    sentences = []
    if stopped:
        sentences.append(f"CUPS queue {name} is stopped" + (f": {message}" if message else ""))
        message = ""
    if first_value(queue, "printer-is-accepting-jobs", True) is False:
        offline = True
        sentences.append(f"CUPS queue {name} is rejecting jobs" + (f": {message}" if message else ""))
        message = ""
    source = "CUPS reports"
    if device is not None and device.failure is not None:
        offline = True
        reasons.add(OFFLINE)
        sentences.append(f"The printer at {device.where} does not answer ({device.failure})")
    elif device is not None:
        reasons |= _reasons(device.attributes)
        offline = offline or first_value(device.attributes, "printer-state") == PRINTER_STOPPED
        message = _text(device.attributes, "printer-state-message") or message
        source = "The printer reports"
    offline = offline or bool(reasons & UNREACHABLE_REASONS)
    # `paused` is said by the stopped queue's sentence; `offline` by the device's when it did not answer.
    explained = ({PAUSED} if stopped else set()) | ({OFFLINE} if device is not None and device.failure else set())
    to_describe = sorted(reasons - explained)
    if to_describe:
        sentences.append(f"{source} {described(to_describe)}" + (f": {message}" if message else ""))
    elif offline and not sentences:
        sentences.append(f"The printer is stopped{f': {message}' if message else ''}")
    return Condition(OFFLINE_STATE if offline else ONLINE, sorted(reasons), "; ".join(sentences))
