"""The overview, computers and printers (state, settings, the live switch)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, Response

from printcloud.api_gateway.transport.dashboard.api_client import ApiClient, answer_as
from printcloud.api_gateway.transport.dashboard.form_state import EMPTY, FieldRefused, FormState, errors_of, sent
from printcloud.api_gateway.transport.dashboard.pages.lookups import every
from printcloud.api_gateway.transport.dashboard.pages.routing import SignedIn, dashboard_router
from printcloud.api_gateway.transport.dashboard.printer_options import (
    OPTION_FIELDS,
    default_options_from,
    option_choices,
    paper_from,
    shown_value,
)
from printcloud.api_gateway.transport.dashboard.web import Page, field, redirect
from printcloud.contracts.errors import ApiError
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import PrinterUpdate
from printcloud.contracts.resources import Printer

router = dashboard_router()

ONLINE = "online"
# The test-mode virtual computer reports this OS; it cannot be deleted or disabled.
VIRTUAL_OS = "virtual"
# The printer form's fields are named as the body's fields they fill, so a refusal lands beside them.
DISPLAY_NAME = public_name(PrinterUpdate, lambda update: update.displayName)
CUSTOM_PAPERS = public_name(PrinterUpdate, lambda update: update.customPapers)
DEFAULT_OPTIONS = public_name(PrinterUpdate, lambda update: update.defaultOptions)


@router.get("/overview")
async def overview(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        printers = await every(api, "/v1/printers")
        computers = await every(api, "/v1/computers")
        jobs = (await api.get("/v1/printjobs", limit=8))["data"]
        usage = await api.get("/v1/usage")
    return await p.render(
        "overview.html", printers={printer["id"]: printer for printer in printers}, computers=computers, jobs=jobs,
        online=sum(1 for printer in printers if printer["state"] == ONLINE),
        computers_online=sum(1 for computer in computers if computer["state"] == ONLINE), usage=usage,
        real_computers=[computer for computer in computers if computer["os"] != VIRTUAL_OS],
    )  # fmt: skip


@router.get("/printers")
async def printers_page(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        computers = await every(api, "/v1/computers")
        printers = await every(api, "/v1/printers")
    by_computer: dict[str, list[dict[str, Any]]] = {}
    for printer in printers:
        by_computer.setdefault(answer_as(Printer, printer).computerId, []).append(printer)
    return await p.render("printers.html", computers=computers, by_computer=by_computer, virtual_os=VIRTUAL_OS)


# --- A computer -----------------------------------------------------------------------------


async def _computer_page(p: Page, computer_id: str, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        computer = await api.get(f"/v1/computers/{computer_id}")
        printers = (await api.get(f"/v1/computers/{computer_id}/printers", limit=100))["data"]
    return await p.render(
        "computer.html", status, computer=computer, printers=printers, form=form, virtual=computer["os"] == VIRTUAL_OS
    )


@router.get("/computers/{computer_id}")
async def computer_page(p: SignedIn, computer_id: str) -> HTMLResponse:
    return await _computer_page(p, computer_id)


@router.post("/computers/{computer_id}")
async def rename_computer(p: SignedIn, computer_id: str) -> Response:
    form = await p.form()
    try:
        async with p.api() as api:
            await api.patch(f"/v1/computers/{computer_id}", {"name": field(form, "name")})
    except ApiError as exc:
        if exc.code != "invalid_request":
            raise
        return await _computer_page(p, computer_id, FormState(sent(form), errors_of(exc, {"name": "name"})), 400)
    return redirect(f"/computers/{computer_id}", "saved")


@router.post("/computers/{computer_id}/enabled")
async def switch_computer(p: SignedIn, computer_id: str) -> Response:
    form = await p.form()
    async with p.api() as api:
        await api.patch(f"/v1/computers/{computer_id}", {"enabled": field(form, "enabled") == "true"})
    return redirect(f"/computers/{computer_id}", "saved")


@router.get("/computers/{computer_id}/delete")
async def confirm_delete_computer(p: SignedIn, computer_id: str) -> HTMLResponse:
    async with p.api() as api:
        computer = await api.get(f"/v1/computers/{computer_id}")
    return await p.confirm(
        "delete-computer", computer["name"], f"/computers/{computer_id}/delete", f"/computers/{computer_id}"
    )


@router.post("/computers/{computer_id}/delete")
async def delete_computer(p: SignedIn, computer_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        await api.delete(f"/v1/computers/{computer_id}")
    return redirect("/printers", "deleted")


# --- A printer ------------------------------------------------------------------------------


async def _printer_page(p: Page, printer_id: str, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        printer = await api.get(f"/v1/printers/{printer_id}")
        read = answer_as(Printer, printer)
        computer = await api.get(f"/v1/computers/{read.computerId}")
        jobs = (await api.get(f"/v1/printers/{printer_id}/printjobs", limit=10))["data"]
    return await p.render(
        "printer.html", status, printer=printer, computer=computer, jobs=jobs, form=form,
        choices=option_choices(printer), option_fields=OPTION_FIELDS, printers={printer["id"]: printer},
        current={name: shown_value(read.defaultOptions.model_dump(), name) for name in OPTION_FIELDS},
    )  # fmt: skip


@router.get("/printers/{printer_id}")
async def printer_page(p: SignedIn, printer_id: str) -> HTMLResponse:
    return await _printer_page(p, printer_id)


async def _patch_printer(p: Page, printer_id: str, form: FormData, body: dict[str, Any]) -> Response:
    """The change, or the printer's page again with the refusal beside its field."""
    try:
        async with p.api() as api:
            await api.patch(f"/v1/printers/{printer_id}", body)
    except ApiError as exc:
        if exc.code != "invalid_request":
            raise
        fields = {DISPLAY_NAME: DISPLAY_NAME, "remarks": "remarks", CUSTOM_PAPERS: "paper_name"}
        fields.update({f"{DEFAULT_OPTIONS}.{name}": f"option_{name}" for name in OPTION_FIELDS})
        return await _printer_page(p, printer_id, FormState(sent(form), errors_of(exc, fields)), exc.status)
    return redirect(f"/printers/{printer_id}", "saved")


@router.post("/printers/{printer_id}")
async def edit_printer(p: SignedIn, printer_id: str) -> Response:
    form = await p.form()
    remarks = field(form, "remarks")
    body = {DISPLAY_NAME: field(form, DISPLAY_NAME), "remarks": remarks or None}
    return await _patch_printer(p, printer_id, form, body)


@router.post("/printers/{printer_id}/options")
async def edit_default_options(p: SignedIn, printer_id: str) -> Response:
    form = await p.form()
    try:
        options = default_options_from(form)
    except FieldRefused as refused:
        return await _printer_page(p, printer_id, refused.state(form), 400)
    return await _patch_printer(p, printer_id, form, {DEFAULT_OPTIONS: options})


@router.post("/printers/{printer_id}/enabled")
async def switch_printer(p: SignedIn, printer_id: str) -> Response:
    form = await p.form()
    async with p.api() as api:
        await api.patch(f"/v1/printers/{printer_id}", {"enabled": field(form, "enabled") == "true"})
    return redirect(f"/printers/{printer_id}", "saved")


@router.post("/printers/{printer_id}/papers")
async def add_paper(p: SignedIn, printer_id: str) -> Response:
    form = await p.form()
    async with p.api() as api:
        papers = await _papers(api, printer_id)
    try:
        paper = paper_from(form)
    except FieldRefused as refused:
        return await _printer_page(p, printer_id, refused.state(form), 400)
    return await _patch_printer(p, printer_id, form, {CUSTOM_PAPERS: [*papers, paper]})


async def _papers(api: ApiClient, printer_id: str) -> list[dict[str, Any]]:
    """The printer's custom papers as the JSON a change sends back."""
    printer = answer_as(Printer, await api.get(f"/v1/printers/{printer_id}"))
    return [paper.model_dump(mode="json") for paper in printer.customPapers]


def _paper_named(p: Page, papers: list[dict[str, Any]]) -> str:
    """The custom paper the address names (`?name=`): names are unique on a printer, and a name,
    unlike a place in the list, still means the same paper if another was removed meanwhile."""
    name = p.request.query_params.get("name", "")
    if not any(paper["name"] == name for paper in papers):
        raise ApiError("not_found", "No such custom paper.")
    return name


@router.get("/printers/{printer_id}/papers/remove")
async def confirm_remove_paper(p: SignedIn, printer_id: str) -> HTMLResponse:
    async with p.api() as api:
        papers = await _papers(api, printer_id)
    name = _paper_named(p, papers)
    action = f"/printers/{printer_id}/papers/remove?{urlencode({'name': name})}"
    return await p.confirm("remove-paper", name, action, f"/printers/{printer_id}")


@router.post("/printers/{printer_id}/papers/remove")
async def remove_paper(p: SignedIn, printer_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        papers = await _papers(api, printer_id)
        name = _paper_named(p, papers)
        kept = [paper for paper in papers if paper["name"] != name]
        await api.patch(f"/v1/printers/{printer_id}", {CUSTOM_PAPERS: kept})
    return redirect(f"/printers/{printer_id}", "saved")
