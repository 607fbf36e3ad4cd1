"""Webhook endpoints: create, read, change and delete them."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from printcloud.contracts.errors import ApiError, found, not_found
from printcloud.core.db.database import AnyRow, Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.http.egress import EgressFailed, EgressGuard, EgressRefused
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.endpoints import (
    MAX_URL_LENGTH,
    EndpointChanges,
    check_description,
    check_events,
    refused_url,
    schemes_for,
)
from printcloud.webhooks.domain.signing import new_secret
from printcloud.webhooks.persistence import endpoints

ENDPOINT = "webhook endpoint"


def require_enabled(endpoint: AnyRow) -> None:
    if not endpoint.enabled:
        raise ApiError("endpoint_disabled", "The webhook endpoint is disabled; re-enable it with PATCH first.")


class Endpoints:
    def __init__(self, db: Database, guard: EgressGuard, *, on_new_delivery: Callable[[], None]) -> None:
        self.db = db
        self.guard = guard
        # Wakes the delivery worker: deliveries held while an endpoint was disabled go out now.
        self.on_new_delivery = on_new_delivery

    async def _check_url(self, url: str, mode: str) -> None:
        """The spec's URL rules (also applied by the guard before every send). Any port: see Sender."""
        schemes = schemes_for(mode)
        try:
            self.guard.check_url(url, schemes=schemes, ports=None, max_length=MAX_URL_LENGTH)
            await self.guard.resolve(url, ports=None, schemes=schemes)
        except (EgressRefused, EgressFailed) as error:
            raise refused_url(error.reason.rstrip(".")) from None

    async def create(self, scope: Scope, *, url: str, description: str, events: Sequence[str]) -> tuple[AnyRow, str]:
        """The new endpoint and its signing secret (returned this once)."""
        checked_events = check_events(events)
        checked_description = check_description(description)
        await self._check_url(url, scope.mode)
        secret = new_secret()
        async with self.db.transaction() as session:
            row = await endpoints.create(
                session,
                scope,
                url=url,
                description=checked_description,
                events=checked_events,
                secret=secret,
                now=utcnow(),
            )
        return row, secret

    async def list_page(self, scope: Scope, page: PageRequest) -> Page[AnyRow]:
        async with self.db.read() as session:
            return await endpoints.list_page(session, scope, page)

    async def get(self, scope: Scope, endpoint_id: uuid.UUID) -> AnyRow:
        async with self.db.read() as session:
            return found(await endpoints.get(session, scope, endpoint_id), ENDPOINT)

    async def update(self, scope: Scope, endpoint_id: uuid.UUID, update: EndpointChanges) -> AnyRow:
        now = utcnow()
        changes: dict[str, Any] = {"updated_at": now}
        if update.description is not None:
            changes["description"] = check_description(update.description)
        if update.events is not None:
            changes["events"] = check_events(update.events)
        if update.enabled is not None:
            # A re-enabled endpoint starts with a clean failure mark; no reason is kept while enabled.
            changes.update(enabled=update.enabled, disabled_reason=None, failing_since=None)
        if update.url is not None:
            await self.get(scope, endpoint_id)  # 404 before judging the URL
            await self._check_url(update.url, scope.mode)
            changes["url"] = update.url
        async with self.db.transaction() as session:
            row = found(await endpoints.update(session, scope, endpoint_id, changes), ENDPOINT)
            if update.enabled is not None:
                await endpoints.record_enabled(session, endpoint_id, update.enabled, now)
        if row.enabled:
            self.on_new_delivery()  # deliveries held while it was disabled are due again
        return row

    async def delete(self, scope: Scope, endpoint_id: uuid.UUID) -> None:
        async with self.db.transaction() as session:
            if not await endpoints.delete(session, scope, endpoint_id):
                raise not_found(ENDPOINT)
