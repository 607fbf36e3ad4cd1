from __future__ import annotations

from datetime import timedelta

from printcloud.core.settings import EgressSettings, InternalAuthSettings, SmtpSettings


class Settings(EgressSettings, InternalAuthSettings, SmtpSettings):
    """Every timer the spec fixes is here with the spec's value, so tests can shorten it.

    The SMTP server (`SmtpSettings`) carries the owners' e-mails; with no host they stay queued.
    """

    service_name: str = "webhooks"
    grpc_listen: str = "127.0.0.1:50053"

    # Multiplies the retry waits (5 s, 30 s, ... 16 h); jitter stays ±20 % of the scaled wait.
    retry_schedule_scale: float = 1.0
    # A 2xx must arrive within this time to count as success.
    answer_timeout_seconds: float = 10.0
    # An event shows in GET /v1/events this long after it was recorded.
    feed_visibility_delay_seconds: float = 2.0
    # Endpoints whose deliveries keep failing this long are disabled (5 days).
    auto_disable_after_seconds: float = 5 * 24 * 3600
    # Delivery logs (and feed events) are purged after this (30 days).
    retention_seconds: float = 30 * 24 * 3600

    # Sends under way at once in one process, and at most this many for one endpoint, so that slow
    # or dead receivers cannot hold everybody else's deliveries up.
    max_concurrent_sends: int = 200
    per_endpoint_concurrency: int = 8
    # Sends under way at once to endpoints with a failure mark (failing since their last success):
    # dead receivers share these, so however many there are, healthy ones keep the other slots.
    failing_endpoints_concurrency: int = 100
    # How long a claimed delivery belongs to the claiming worker; must exceed the answer timeout.
    claim_lease_seconds: float = 60.0
    # Safety net for work no wake-up announces: a lease run out, a retry scheduled by a replica that
    # has stopped. New deliveries, finished sends and the retries a worker schedules wake it.
    poll_interval_seconds: float = 5.0
    user_agent: str = "PrintCloud-Webhooks/1.0"

    @property
    def retention(self) -> timedelta:
        return timedelta(seconds=self.retention_seconds)

    @property
    def auto_disable_after(self) -> timedelta:
        return timedelta(seconds=self.auto_disable_after_seconds)

    @property
    def feed_visibility_delay(self) -> timedelta:
        return timedelta(seconds=self.feed_visibility_delay_seconds)

    @property
    def claim_lease(self) -> timedelta:
        return timedelta(seconds=self.claim_lease_seconds)
