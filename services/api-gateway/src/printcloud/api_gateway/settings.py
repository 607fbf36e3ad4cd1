from __future__ import annotations

from datetime import timedelta

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from printcloud.api_gateway.domain.plans import DEFAULT_PLANS, DEFAULT_UPGRADE_URL
from printcloud.api_gateway.domain.public_url import public_base_url
from printcloud.api_gateway.domain.rate_limits import DEFAULT_REQUESTS_PER_SECOND
from printcloud.api_gateway.persistence.redis_url import check_redis_url
from printcloud.core.settings import ENV_PREFIX, EdgeSettings, InternalAuthSettings, SmtpSettings


class PlanSettings(BaseSettings):
    """The plans alone: the operator CLI reads them without needing the server's settings."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    # JSON, plan name to live prints per calendar month (UTC): {"free": 100, "pro": 5000, ...}.
    plans: dict[str, int] = DEFAULT_PLANS


class DashboardSettings(SmtpSettings):
    """Sign-in and sessions; the SMTP server (`SmtpSettings`) carries the sign-in codes."""

    # Where people reach this gateway (the API, and the dashboard under /dashboard), for the
    # absolute URLs of e-mails (sign-in codes, invitations) and the agent's enrolment command:
    # never taken from a request, whose `Host` header the client chooses. Behind a proxy: its
    # public https URL.
    public_url: str = "http://127.0.0.1:8080"

    # "open": a new address that asks for a code gets one and, signing in, an organization it
    # owns. "closed": only existing and invited users get codes. `make dev` runs it open.
    signup: str = "closed"
    sign_in_code_seconds: float = 600.0
    # Code requests allowed per e-mail address and per client IP address in the window.
    sign_in_requests_per_address: int = 5
    sign_in_requests_per_client: int = 20
    sign_in_window_seconds: float = 900.0
    # A session ends after this long without a request, and in any case this long after sign-in.
    session_idle_seconds: float = 12 * 3600
    session_absolute_seconds: float = 7 * 24 * 3600

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        return public_base_url(value)

    @property
    def session_idle(self) -> timedelta:
        return timedelta(seconds=self.session_idle_seconds)

    @property
    def session_absolute(self) -> timedelta:
        return timedelta(seconds=self.session_absolute_seconds)


class Settings(EdgeSettings, InternalAuthSettings, PlanSettings, DashboardSettings):
    service_name: str = "api-gateway"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    # Handed to agents at enrolment: where they open their WebSocket (the agent-gateway).
    agent_gateway_public_url: str = "http://127.0.0.1:8081"
    # Empty: each replica limits on its own (exact with one replica). Set it whenever more than one
    # replica serves the API, so the limit holds for their sum. May carry a password: never logged.
    # `rediss://...?ssl_ca_certs=/path/ca.crt` for TLS (`persistence/redis_url.py`).
    redis_url: str = ""
    # The spec's 20; only suites that test other rules at speed raise it.
    rate_limit_per_second: int = DEFAULT_REQUESTS_PER_SECOND
    # Namespaces the limiter's keys in a Redis shared with other uses (or other test runs).
    rate_limit_key_prefix: str = "printcloud:ratelimit:"
    # A request waits at most this long on Redis before its replica decides alone.
    redis_timeout_seconds: float = 0.1
    # The billing page a `quota_exceeded` error names (`error.upgrade_url`).
    upgrade_url: str = DEFAULT_UPGRADE_URL

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str) -> str:
        if value:
            check_redis_url(value)
        return value
