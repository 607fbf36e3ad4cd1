"""What a spooler backend provides to the agent client."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from printcloud.protocol.messages import Job, PrinterReport

# report(state, message): sends `job.state`; state is printing, done or error.
ReportState = Callable[[str, str | None], Awaitable[None]]


class Backend(Protocol):
    async def discover(self) -> list[PrinterReport]:
        """The printers of this computer as they should be reported now."""
        ...

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        """Prints `data` (already verified) and reports `printing`, then `done` or `error`.

        Cancellation arrives as `asyncio.CancelledError` (the service cancelled the job): stop,
        withdraw whatever reached the spooler, report nothing more, and let it propagate.
        """
        ...


@runtime_checkable
class SignalsPrinterChanges(Protocol):
    """A backend that knows when its printers change (the virtual one does; spoolers are polled)."""

    def printers_changed(self) -> asyncio.Event:
        """Set when the printers may have changed: the agent asks `discover` at once rather than at
        its next poll, and clears it."""
        ...
