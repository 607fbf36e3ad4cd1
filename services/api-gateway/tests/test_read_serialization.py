"""The hot read routes encode their answer once: the JSON the representations already are, with
no second walk through FastAPI's `jsonable_encoder` (hundreds of microseconds for a page)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fastapi.encoders import jsonable_encoder
from starlette.responses import JSONResponse

from printcloud.api_gateway.transport.mapping import forwarded
from printcloud.contracts.representations import as_json, representation
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


def test_a_representation_rendered_by_a_service_is_the_bytes_the_gateway_would_send() -> None:
    """devices and jobs render the hottest reads themselves; their bytes must be the gateway's own."""
    shown = {"title": "Zoë's ☃ report", "copies": 2, "ratio": 0.5, "note": None, "tags": ["a", {"b": True}]}
    assert as_json(shown) == JSONResponse(shown).body
    forwarded_answer = forwarded(representation(shown))
    assert (forwarded_answer.body, forwarded_answer.media_type) == (JSONResponse(shown).body, JSONResponse.media_type)
