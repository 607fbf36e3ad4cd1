"""The asynchronous client. `_sync_client.py` is generated from this file by tools/unasync.py
(`make sdk`): change this one, then regenerate."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from time import monotonic
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from printcloud_sdk import models
from printcloud_sdk._request import (
    NOT_GIVEN,
    TERMINAL_JOB_STATES,
    NotGiven,
    Settings,
    document_content,
    looks_like_id,
    matching_printer,
    new_idempotency_key,
    options_json,
    present,
    query,
)
from printcloud_sdk.errors import ApiConnectionError, error_from
from printcloud_sdk.events import AnyEvent, parse_event
from printcloud_sdk.retries import RetryPolicy, is_retryable, retry_after, was_not_sent

Model = TypeVar("Model", bound=BaseModel)
Item = TypeVar("Item", bound=BaseModel)


class AsyncPrintCloud:
    """A client of the PrintCloud API.

    The key and the address come from the arguments, else from `PRINTCLOUD_API_KEY` and
    `PRINTCLOUD_BASE_URL`. Answers `429` and `5xx` and network errors are retried as the spec asks
    (`retry`); error answers raise `printcloud_sdk.errors.ApiError` subclasses."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        settings = Settings.resolve(api_key, base_url)
        self.base_url = settings.base_url
        self.retry = retry or RetryPolicy()
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._headers = settings.headers()
        self.print_jobs = AsyncPrintJobs(self)
        self.printers = AsyncPrinters(self)
        self.computers = AsyncComputers(self)
        self.webhooks = AsyncWebhooks(self)
        self.events = AsyncEvents(self)
        self.agents = AsyncAgents(self)

    async def __aenter__(self) -> AsyncPrintCloud:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def whoami(self) -> models.Whoami:
        """The key's organization, mode and plan."""
        return await self.call(models.Whoami, "GET", "/v1/whoami")

    async def usage(self) -> models.Usage:
        """Live prints this month and test jobs today."""
        return await self.call(models.Usage, "GET", "/v1/usage")

    async def call(
        self,
        model: type[Model],
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Model:
        """One operation, its answer read as `model`."""
        response = await self.send(method, path, params=params, body=body, idempotency_key=idempotency_key)
        return model.model_validate_json(response.content)

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> httpx.Response:
        """One operation with the spec's retries; the successful answer, or an `ApiError`.

        A request that may have reached the server is sent again after a network error only when
        repeating it is safe: not a POST, or a POST with an `Idempotency-Key` (the same on every try)."""
        headers = dict(self._headers)
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        repeatable = method != "POST" or idempotency_key is not None
        url = self.base_url + path
        retries = 0
        while True:
            try:
                response = await self._http.request(method, url, params=params, json=body, headers=headers)
            except httpx.TransportError as error:
                if retries >= self.retry.max_retries or not (repeatable or was_not_sent(error)):
                    raise ApiConnectionError(f"{method} {path}: {error!r}") from error
                await asyncio.sleep(self.retry.wait(retries))
                retries += 1
                continue
            if response.is_success:
                return response
            if is_retryable(response.status_code) and retries < self.retry.max_retries:
                await asyncio.sleep(self.retry.wait(retries, retry_after(response)))
                retries += 1
                continue
            raise error_from(response)

    async def every(
        self, page_model: type[Model], path: str, params: Mapping[str, Any], item: type[Item]
    ) -> AsyncIterator[Item]:
        """Every item of a list, page after page, following `nextCursor`."""
        current = dict(params)
        while True:
            page: Any = await self.call(page_model, "GET", path, params=current)
            for found in page.data:
                yield found
            if not page.has_more or page.next_cursor is None:
                return
            current["after"] = page.next_cursor


class AsyncPrintJobs:
    def __init__(self, client: AsyncPrintCloud) -> None:
        self._client = client

    async def create(
        self,
        *,
        printer_id: str,
        title: str,
        content_type: str,
        content: str,
        options: models.PrintOptions | Mapping[str, Any] | None = None,
        qty: int | None = None,
        source: str | None = None,
        expire_after: int | None = None,
        authentication: models.ContentAuthentication | None = None,
        idempotency_key: str | None = None,
    ) -> models.PrintJob:
        """A new job, `queued`. One `Idempotency-Key` (made here unless given) goes with every try,
        so a retried create never prints twice."""
        body = present(
            printerId=printer_id,
            title=title,
            contentType=content_type,
            content=content,
            options=options_json(options),
            qty=qty,
            source=source,
            expireAfter=expire_after,
            authentication=authentication.to_json() if authentication is not None else None,
        )
        key = idempotency_key or new_idempotency_key()
        return await self._client.call(models.PrintJob, "POST", "/v1/printjobs", body=body, idempotency_key=key)

    async def print_file(
        self,
        path: str | Path,
        *,
        printer: str,
        options: models.PrintOptions | Mapping[str, Any] | None = None,
        title: str | None = None,
        qty: int | None = None,
        source: str | None = None,
        expire_after: int | None = None,
        idempotency_key: str | None = None,
    ) -> models.PrintJob:
        """Prints a local file on `printer` (an id, a name or a display name): a PDF as
        `pdf_base64`, anything else as raw printer data (`raw_base64`). The title defaults to the
        file's name."""
        file = Path(path)
        content_type, content = document_content(await asyncio.to_thread(file.read_bytes))
        return await self.create(
            printer_id=await self._client.printers.resolve(printer),
            title=title or file.name,
            content_type=content_type,
            content=content,
            options=options,
            qty=qty,
            source=source,
            expire_after=expire_after,
            idempotency_key=idempotency_key,
        )

    async def print_url(
        self,
        url: str,
        *,
        printer: str,
        title: str,
        raw: bool = False,
        options: models.PrintOptions | Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PrintJob:
        """Prints the document at `url` (fetched once by the service): a PDF, or raw data when `raw`."""
        return await self.create(
            printer_id=await self._client.printers.resolve(printer),
            title=title,
            content_type="raw_uri" if raw else "pdf_uri",
            content=url,
            options=options,
            idempotency_key=idempotency_key,
        )

    async def reprint(
        self,
        job_id: str,
        *,
        printer_id: str,
        title: str,
        qty: int | None = None,
        source: str | None = None,
        idempotency_key: str | None = None,
    ) -> models.PrintJob:
        """The stored file of an earlier job (kept 7 days), printed again on `printer_id`."""
        body = {"printerId": printer_id, "title": title, "reprintOf": job_id, **present(qty=qty, source=source)}
        key = idempotency_key or new_idempotency_key()
        return await self._client.call(models.PrintJob, "POST", "/v1/printjobs", body=body, idempotency_key=key)

    async def get(self, job_id: str) -> models.PrintJob:
        return await self._client.call(models.PrintJob, "GET", f"/v1/printjobs/{job_id}")

    async def cancel(self, job_id: str) -> models.PrintJob:
        """Cancels a `queued` or `sent` job; `ConflictError` (`not_cancellable`) once its agent has it."""
        return await self._client.call(models.PrintJob, "POST", f"/v1/printjobs/{job_id}/cancel")

    async def download(self, job_id: str) -> bytes:
        """The job's stored file (kept 7 days; `GoneError` (`file_expired`) after that)."""
        return (await self._client.send("GET", f"/v1/printjobs/{job_id}/file")).content

    async def history(self, job_id: str) -> builtins.list[models.JobStateChange]:
        """Every state change of the job, oldest first."""
        changes = await self._client.call(models.JobStateChangeList, "GET", f"/v1/printjobs/{job_id}/events")
        return changes.data

    async def list(
        self,
        *,
        limit: int | None = None,
        after: str | None = None,
        dir: str | None = None,
        printer_id: str | None = None,
        computer_id: str | None = None,
        state: str | None = None,
        created_from: str | None = None,
        created_to: str | None = None,
        title: str | None = None,
    ) -> models.PrintJobPage:
        """One page of jobs, newest first unless `dir="asc"`."""
        params = query(
            limit=limit,
            after=after,
            dir=dir,
            printerId=printer_id,
            computerId=computer_id,
            state=state,
            createdFrom=created_from,
            createdTo=created_to,
            title=title,
        )
        return await self._client.call(models.PrintJobPage, "GET", "/v1/printjobs", params=params)

    def iterate(
        self,
        *,
        dir: str | None = None,
        printer_id: str | None = None,
        computer_id: str | None = None,
        state: str | None = None,
        created_from: str | None = None,
        created_to: str | None = None,
        title: str | None = None,
    ) -> AsyncIterator[models.PrintJob]:
        """Every job matching the filters, page after page."""
        params = query(
            limit=100,
            dir=dir,
            printerId=printer_id,
            computerId=computer_id,
            state=state,
            createdFrom=created_from,
            createdTo=created_to,
            title=title,
        )
        return self._client.every(models.PrintJobPage, "/v1/printjobs", params, models.PrintJob)

    async def wait(self, job_id: str, *, timeout: float | None = None, poll_interval: float = 1.0) -> models.PrintJob:
        """The job once it reached a final state (`done`, `error`, `cancelled`, `expired`); raises
        `TimeoutError` after `timeout` seconds."""
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            job = await self.get(job_id)
            if job.state in TERMINAL_JOB_STATES:
                return job
            if deadline is not None and monotonic() >= deadline:
                raise TimeoutError(f"job {job_id} is still {job.state} after {timeout} seconds")
            await asyncio.sleep(poll_interval)


class AsyncPrinters:
    def __init__(self, client: AsyncPrintCloud) -> None:
        self._client = client

    async def get(self, printer_id: str) -> models.Printer:
        return await self._client.call(models.Printer, "GET", f"/v1/printers/{printer_id}")

    async def list(
        self, *, limit: int | None = None, after: str | None = None, dir: str | None = None
    ) -> models.PrinterPage:
        params = query(limit=limit, after=after, dir=dir)
        return await self._client.call(models.PrinterPage, "GET", "/v1/printers", params=params)

    def iterate(self, *, dir: str | None = None) -> AsyncIterator[models.Printer]:
        """Every printer of the key's mode."""
        return self._client.every(models.PrinterPage, "/v1/printers", query(limit=100, dir=dir), models.Printer)

    async def find(self, name: str) -> models.Printer:
        """The printer named `name` (its `name`, else its `displayName`); `PrinterLookupError` when
        none or several are."""
        return matching_printer(name, [printer async for printer in self.iterate()])

    async def resolve(self, printer: str) -> str:
        """The id of `printer`, given as an id or a name."""
        return printer if looks_like_id(printer) else (await self.find(printer)).id

    async def update(
        self,
        printer_id: str,
        *,
        display_name: str | NotGiven = NOT_GIVEN,
        enabled: bool | NotGiven = NOT_GIVEN,
        remarks: str | NotGiven | None = NOT_GIVEN,
        default_options: models.PrintOptions | Mapping[str, Any] | NotGiven = NOT_GIVEN,
        custom_papers: builtins.list[models.CustomPaper] | NotGiven = NOT_GIVEN,
    ) -> models.Printer:
        """Changes the given settings only (`remarks=None` clears the remarks); scope `admin`."""
        body = present(
            displayName=display_name,
            enabled=enabled,
            remarks=remarks,
            defaultOptions=options_json(default_options),
            customPapers=custom_papers if isinstance(custom_papers, NotGiven) else [p.to_json() for p in custom_papers],
            keep_none={"remarks"},
        )
        return await self._client.call(models.Printer, "PATCH", f"/v1/printers/{printer_id}", body=body)

    def jobs(self, printer_id: str, *, dir: str | None = None) -> AsyncIterator[models.PrintJob]:
        """Every job sent to the printer."""
        path = f"/v1/printers/{printer_id}/printjobs"
        return self._client.every(models.PrintJobPage, path, query(limit=100, dir=dir), models.PrintJob)


class AsyncComputers:
    def __init__(self, client: AsyncPrintCloud) -> None:
        self._client = client

    async def get(self, computer_id: str) -> models.Computer:
        return await self._client.call(models.Computer, "GET", f"/v1/computers/{computer_id}")

    async def list(
        self, *, limit: int | None = None, after: str | None = None, dir: str | None = None
    ) -> models.ComputerPage:
        params = query(limit=limit, after=after, dir=dir)
        return await self._client.call(models.ComputerPage, "GET", "/v1/computers", params=params)

    def iterate(self, *, dir: str | None = None) -> AsyncIterator[models.Computer]:
        return self._client.every(models.ComputerPage, "/v1/computers", query(limit=100, dir=dir), models.Computer)

    async def update(
        self, computer_id: str, *, name: str | NotGiven = NOT_GIVEN, enabled: bool | NotGiven = NOT_GIVEN
    ) -> models.Computer:
        """Renames it, or disables (`enabled=False`: its agent is disconnected) or re-enables it."""
        body = present(name=name, enabled=enabled)
        return await self._client.call(models.Computer, "PATCH", f"/v1/computers/{computer_id}", body=body)

    async def delete(self, computer_id: str) -> None:
        await self._client.send("DELETE", f"/v1/computers/{computer_id}")

    def printers(self, computer_id: str) -> AsyncIterator[models.Printer]:
        path = f"/v1/computers/{computer_id}/printers"
        return self._client.every(models.PrinterPage, path, query(limit=100), models.Printer)


class AsyncWebhooks:
    def __init__(self, client: AsyncPrintCloud) -> None:
        self._client = client

    async def create(
        self, url: str, events: list[str], *, description: str | None = None
    ) -> models.CreatedWebhookEndpoint:
        """A new endpoint; its `secret` (to verify deliveries with) is in this answer only."""
        body = present(url=url, events=events, description=description)
        return await self._client.call(models.CreatedWebhookEndpoint, "POST", "/v1/webhooks", body=body)

    async def get(self, endpoint_id: str) -> models.WebhookEndpoint:
        return await self._client.call(models.WebhookEndpoint, "GET", f"/v1/webhooks/{endpoint_id}")

    def iterate(self) -> AsyncIterator[models.WebhookEndpoint]:
        page, item = models.WebhookEndpointPage, models.WebhookEndpoint
        return self._client.every(page, "/v1/webhooks", query(limit=100), item)

    async def update(
        self,
        endpoint_id: str,
        *,
        url: str | NotGiven = NOT_GIVEN,
        description: str | NotGiven = NOT_GIVEN,
        events: list[str] | NotGiven = NOT_GIVEN,
        enabled: bool | NotGiven = NOT_GIVEN,
    ) -> models.WebhookEndpoint:
        body = present(url=url, description=description, events=events, enabled=enabled)
        return await self._client.call(models.WebhookEndpoint, "PATCH", f"/v1/webhooks/{endpoint_id}", body=body)

    async def delete(self, endpoint_id: str) -> None:
        await self._client.send("DELETE", f"/v1/webhooks/{endpoint_id}")

    async def ping(self, endpoint_id: str) -> models.WebhookDelivery:
        """Queues a signed test delivery (type `ping`)."""
        return await self._client.call(models.WebhookDelivery, "POST", f"/v1/webhooks/{endpoint_id}/ping")

    def deliveries(
        self, endpoint_id: str | None = None, *, status: str | None = None, dir: str | None = None
    ) -> AsyncIterator[models.WebhookDelivery]:
        """One endpoint's deliveries, or every endpoint's with no `endpoint_id`; `status` narrows them."""
        params = query(limit=100, dir=dir, status=status, endpointId=endpoint_id)
        return self._client.every(models.WebhookDeliveryPage, "/v1/deliveries", params, models.WebhookDelivery)

    async def delivery(self, delivery_id: str) -> models.WebhookDelivery:
        """One delivery with its payload and every attempt (request headers, response)."""
        return await self._client.call(models.WebhookDelivery, "GET", f"/v1/deliveries/{delivery_id}")

    async def replay(self, delivery_id: str) -> models.WebhookDelivery:
        """Sends a delivery's event again, with the same `webhook-id`."""
        path = f"/v1/webhooks/deliveries/{delivery_id}/replay"
        return await self._client.call(models.WebhookDelivery, "POST", path)


class AsyncEvents:
    def __init__(self, client: AsyncPrintCloud) -> None:
        self._client = client

    async def list(
        self, *, limit: int | None = None, after: str | None = None, dir: str | None = None
    ) -> tuple[builtins.list[AnyEvent], bool, str | None]:
        """One page of the feed: its events (typed by `type`), whether more follow, and `nextCursor`."""
        response = await self._client.send("GET", "/v1/events", params=query(limit=limit, after=after, dir=dir))
        page = response.json()
        return [parse_event(event) for event in page["data"]], page["hasMore"], page["nextCursor"]

    async def latest_id(self) -> str | None:
        """The id of the newest event, to follow the feed from now on."""
        events, _, _ = await self.list(limit=1, dir="desc")
        return events[0].id if events else None

    def follow(
        self, *, after: str | None = None, types: set[str] | None = None, poll_interval: float = 2.0
    ) -> AsyncEventFollower:
        """Every event after `after` (from the first without it), oldest first, then each new one as
        it appears; see `AsyncEventFollower`."""
        return AsyncEventFollower(self, after, types, poll_interval)


class AsyncEventFollower:
    """Follows the feed as the spec asks: `after` stays at the id of the last event processed and
    never skips ahead, because an event may appear a moment after a newer one. An event counts as
    processed when the loop asks for the next one, so after a crash or a `break`, following again
    from `after` hands out the event that was being processed, and every later one."""

    def __init__(self, events: AsyncEvents, after: str | None, types: set[str] | None, poll_interval: float) -> None:
        self.after = after
        self._events = events
        self._types = types
        self._poll_interval = poll_interval

    def __aiter__(self) -> AsyncIterator[AnyEvent]:
        return self._follow()

    async def _follow(self) -> AsyncIterator[AnyEvent]:
        while True:
            events, more, _ = await self._events.list(limit=100, after=self.after, dir="asc")
            for event in events:
                if self._types is None or event.type in self._types:
                    yield event
                self.after = event.id
            if not more:
                await asyncio.sleep(self._poll_interval)


class AsyncAgents:
    def __init__(self, client: AsyncPrintCloud) -> None:
        self._client = client

    async def enroll(self, hostname: str, *, name: str | None = None) -> models.Enrollment:
        """A new computer for an agent, and the credential it connects with (shown once)."""
        body = present(hostname=hostname, name=name)
        return await self._client.call(models.Enrollment, "POST", "/v1/agent/enroll", body=body)

    async def create_pairing_code(
        self, *, max_uses: int | None = None, expire_after: int | None = None, description: str | None = None
    ) -> models.CreatedPairingCode:
        """A code that enrols up to `max_uses` computers with `printcloud-agent enroll --code`, until it
        expires (`expire_after` seconds); the code itself is in this answer only."""
        body = present(maxUses=max_uses, expireAfter=expire_after, description=description)
        return await self._client.call(models.CreatedPairingCode, "POST", "/v1/agent/pairing-codes", body=body)

    def pairing_codes(self, *, dir: str | None = None) -> AsyncIterator[models.PairingCode]:
        path = "/v1/agent/pairing-codes"
        return self._client.every(models.PairingCodePage, path, query(limit=100, dir=dir), models.PairingCode)

    async def pairing_code(self, code_id: str) -> models.PairingCode:
        return await self._client.call(models.PairingCode, "GET", f"/v1/agent/pairing-codes/{code_id}")

    def pairing_code_enrollments(self, code_id: str) -> AsyncIterator[models.PairingCodeEnrollment]:
        """The computers a code enrolled, newest first."""
        path = f"/v1/agent/pairing-codes/{code_id}/enrollments"
        return self._client.every(
            models.PairingCodeEnrollmentPage, path, query(limit=100), models.PairingCodeEnrollment
        )

    async def revoke_pairing_code(self, code_id: str) -> None:
        await self._client.send("DELETE", f"/v1/agent/pairing-codes/{code_id}")
