"""The dashboard's routes, by area. Reads and changes of printers, jobs, webhooks and events go
through the public API (`ApiClient`); accounts (sign-in, members, keys, settings) through the
gateway's use cases. The not-found page comes last: it answers every path the others do not."""

from __future__ import annotations

from fastapi import APIRouter

from printcloud.api_gateway.transport.dashboard.pages import (
    account,
    enrolment,
    fleet,
    jobs,
    not_found,
    session,
    webhooks,
)

router = APIRouter()
for area in (session, fleet, enrolment, jobs, webhooks, account, not_found):
    router.include_router(area.router)
