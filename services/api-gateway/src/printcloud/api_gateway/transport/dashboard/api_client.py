"""The pages' way to the public API: the same `/v1` routes, called in-process with the page's
session, so that every rule (scopes and roles, validation, tenancy, errors) has one home."""

from __future__ import annotations

from typing import Any, TypeVar

import httpx
from pydantic import BaseModel
from starlette.requests import Request

from printcloud.api_gateway.domain.sessions import COOKIE_NAME, CSRF_HEADER, csrf_token
from printcloud.contracts.errors import STATUS_BY_CODE, ApiError
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, request_id_var

# Every call stays inside this process; the host name only fills the URL.
Model = TypeVar("Model", bound=BaseModel)
_BASE_URL = "http://dashboard.internal"


def answer_as(model: type[Model], answer: Any) -> Model:
    """An answer's JSON as its contract model, so that a page reads a field typed
    (`answer_as(Printer, printer).computerId`); the templates still render the JSON. Times arrive as
    ISO text, which only the lax mode reads as times."""
    return model.model_validate(answer, strict=False)


class ApiClient:
    def __init__(self, request: Request, session_token: str) -> None:
        self._client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=request.app),
            base_url=_BASE_URL,
            cookies={COOKIE_NAME: session_token},
            headers={CSRF_HEADER: csrf_token(session_token), REQUEST_ID_HEADER: request_id_var.get() or ""},
            timeout=60.0,
        )

    async def __aenter__(self) -> ApiClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self._client.aclose()

    async def call(self, method: str, path: str, *, params: dict[str, Any] | None = None, json: Any = None) -> Any:
        """The answer's JSON (None for 204); an error answer is raised as the same ApiError."""
        query = {k: v for k, v in (params or {}).items() if v not in (None, "")}
        response = await self._client.request(method, path, params=query, json=json)
        if response.status_code == 204:
            return None
        body = response.json()
        if response.status_code >= 400:
            error = body.get("error", {})
            code = error.get("code") if error.get("code") in STATUS_BY_CODE else "internal_error"
            raise ApiError(code, error.get("message") or "The request failed.")
        return body

    async def get(self, path: str, **params: Any) -> Any:
        return await self.call("GET", path, params=params)

    async def post(self, path: str, json: Any = None) -> Any:
        return await self.call("POST", path, json=json)

    async def patch(self, path: str, json: Any) -> Any:
        return await self.call("PATCH", path, json=json)

    async def delete(self, path: str) -> Any:
        return await self.call("DELETE", path)
