"""Any other path under /dashboard: a page in the dashboard's layout, never the API's JSON."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from printcloud.api_gateway.transport.dashboard.pages.routing import dashboard_router
from printcloud.api_gateway.transport.dashboard.web import error_page, redirect
from printcloud.contracts.errors import ApiError

router = dashboard_router()


@router.api_route("/{rest:path}", methods=["GET", "HEAD", "POST"])
async def not_found(request: Request, rest: str) -> Response:
    if request.method == "GET" and rest.endswith("/") and rest.strip("/"):
        # A page's address typed with a slash too many: the page itself, by a relative redirect.
        return redirect(f"/{rest.strip('/')}")
    return await error_page(request, ApiError("not_found", "There is no such page in the dashboard."))
