"""Settings of the dispatcher (`PRINTCLOUD_*` environment variables). The timer policy (resend
wait, resends, spooler timeout) is not here: it is jobs' own (`printcloud.jobs.settings`)."""

from __future__ import annotations

from pydantic import PositiveFloat, PositiveInt

from printcloud.core.settings import InternalAuthSettings


class Settings(InternalAuthSettings):
    service_name: str = "dispatcher"
    # How often due timers are looked for: a timer fires at most this late.
    timer_poll_seconds: PositiveFloat = 1.0
    # Timers fired per call at most (jobs accepts 1 to 1000).
    timer_batch_size: PositiveInt = 100
