"""What a spooler backend provides to the agent client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

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
