from __future__ import annotations

from dataclasses import dataclass, field

from printcloud.api_gateway.domain.plans import DEFAULT_CATALOG, DEFAULT_UPGRADE_URL, PlanCatalog
from printcloud.api_gateway.domain.rate_limits import DEFAULT_REQUESTS_PER_SECOND
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.persistence.verified_keys import VerifiedKeys
from printcloud.api_gateway.settings import DashboardSettings
from printcloud.api_gateway.transport.jobs_client import JobCreation
from printcloud.api_gateway.use_cases.accounts import Accounts
from printcloud.api_gateway.use_cases.mail import Mailer
from printcloud.api_gateway.use_cases.organization import Organization
from printcloud.api_gateway.use_cases.sign_in import SignIn
from printcloud.core.mail import SmtpServer
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc, webhooks_pb2_grpc


@dataclass(frozen=True)
class GatewayDeps:
    """Everything the HTTP layer talks to; tests build one around fakes."""

    accounts: Accounts
    jobs: jobs_pb2_grpc.JobsStub
    devices: devices_pb2_grpc.DevicesStub
    webhooks: webhooks_pb2_grpc.WebhooksStub
    agent_gateway_public_url: str
    rate_limiter: RateLimiter = field(default_factory=lambda: RateLimiter(DEFAULT_REQUESTS_PER_SECOND))
    plans: PlanCatalog = DEFAULT_CATALOG
    upgrade_url: str = DEFAULT_UPGRADE_URL
    dashboard: DashboardSettings = field(default_factory=DashboardSettings)
    # Untrusted until a key change listener runs (app.py): then keys skip the database for a while.
    verified_keys: VerifiedKeys = field(default_factory=VerifiedKeys)
    sign_in: SignIn = field(init=False)
    organization: Organization = field(init=False)
    job_creation: JobCreation = field(init=False)

    def __post_init__(self) -> None:
        db = self.accounts.db
        mailer = Mailer(SmtpServer.from_settings(self.dashboard))
        object.__setattr__(self, "sign_in", SignIn(db, mailer, self.dashboard))
        object.__setattr__(self, "organization", Organization(db, mailer, self.verified_keys.forget_all))
        object.__setattr__(self, "job_creation", JobCreation(self.jobs))
