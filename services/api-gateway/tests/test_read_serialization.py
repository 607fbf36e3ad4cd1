"""The hot read routes encode their answer once: the JSON the representations already are, with
no second walk through FastAPI's `jsonable_encoder` (hundreds of microseconds for a page)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fastapi.encoders import jsonable_encoder

from printcloud.contracts.representations import print_job as render_print_job
from printcloud.contracts.representations import printer as render_printer

if TYPE_CHECKING:
    from conftest import Services, Tenant


async def test_printers_and_print_jobs_are_encoded_once(
    client: httpx.AsyncClient, tenant: Tenant, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth = {"Authorization": f"Bearer {await tenant.make_key()}"}
    computer = services.devices.add_computer(tenant.organization_id, "test")
    printer = services.devices.add_printer(computer)
    job = services.jobs.add_job(tenant.organization_id, "test", printer.id)
    walks: list[Any] = []

    def counted(content: Any, *args: Any, **kwargs: Any) -> Any:
        walks.append(content)
        return jsonable_encoder(content, *args, **kwargs)

    # The name FastAPI's routing calls for an answer that is not a Response yet.
    monkeypatch.setattr("fastapi.routing.jsonable_encoder", counted)
    printers = await client.get("/v1/printers", headers=auth)
    assert printers.status_code == 200
    assert printers.json()["data"] == [render_printer(printer)]
    got = await client.get(f"/v1/printjobs/{job.id}", headers=auth)
    assert got.status_code == 200
    assert got.json() == render_print_job(job)
    assert walks == []
