"""Settings of the dispatcher (`PRINTCLOUD_*` environment variables). The timer durations
default to the spec's values; tests shorten them."""

from __future__ import annotations

from printcloud.core.settings import InternalAuthSettings


class Settings(InternalAuthSettings):
    service_name: str = "dispatcher"
    # A `sent` job not acknowledged within this long is sent again...
    resend_after_seconds: float = 60.0
    # ...this many times at most; one more wait without acknowledgement and it is `queued` again.
    max_resends: int = 3
    # A job `printing` this long ends in `error` with `stateMessage` `spooler timeout`.
    spooler_timeout_seconds: float = 900.0
    # How often due timers are looked for: a timer fires at most this late.
    timer_poll_seconds: float = 1.0
    timer_batch_size: int = 100
