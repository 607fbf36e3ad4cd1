"""Request-rate limits at the edge: who a request is charged to, the 429, and the rate headers.

A request is charged once, to one principal string:
- `key:<api key id>` once the key authenticates (`transport.auth` calls `charge`);
- `user:<user id>` once a dashboard session authenticates (every session of a user shares it);
- `ip:<client address>` when it presents a key or session that does not authenticate, or no
  credential at all (this middleware charges those before the app runs), so guessing is slow too.

Every /v1 response that was charged carries `RateLimit-Limit`, `-Remaining` and `-Reset`, so a
client can pace itself before it is refused; a 429 adds `Retry-After`.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from printcloud.api_gateway.domain.rate_limits import RateDecision
from printcloud.api_gateway.domain.sessions import COOKIE_NAME
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.transport.envelope import error_response
from printcloud.contracts.errors import ApiError

_DECISION = "rate_limit_decision"
_LIMITED_PREFIX = "/v1/"


def key_principal(api_key_id: str) -> str:
    return f"key:{api_key_id}"


def client_principal(scope: Scope) -> str:
    """The peer address as the server saw it (uvicorn applies X-Forwarded-For only from trusted proxies)."""
    client = scope.get("client")
    return f"ip:{client[0] if client else 'unknown'}"


def carries_credential(headers: Headers) -> bool:
    """Whether something after this middleware will authenticate the request and charge it."""
    return "authorization" in headers or f"{COOKIE_NAME}=" in headers.get("cookie", "")


def rate_limited(decided: RateDecision) -> ApiError:
    return ApiError(
        "rate_limited",
        f"More than {decided.limit} requests per second; retry after {decided.retry_after} s.",
    )


async def charge(request: Request, principal: str) -> None:
    """Charges the request to `principal` unless it was charged already; raises 429 when over."""
    state = request.scope.setdefault("state", {})
    decided = state.get(_DECISION)
    if decided is None:
        limiter: RateLimiter = request.app.state.deps.rate_limiter
        decided = state[_DECISION] = await limiter.hit(principal)
    if not decided.allowed:
        raise rate_limited(decided)


class RateLimitMiddleware:
    """Pure ASGI; sits inside `RequestContext` (core) so a 429 carries the request id."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(_LIMITED_PREFIX):
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})

        async def send_with_rate_headers(message: Message) -> None:
            decided: RateDecision | None = state.get(_DECISION)
            if message["type"] == "http.response.start" and decided is not None:
                headers = MutableHeaders(scope=message)
                for name, value in decided.headers().items():
                    headers[name] = value
            await send(message)

        if not carries_credential(Headers(scope=scope)):
            decided = state[_DECISION] = await self.limiter.hit(client_principal(scope))
            if not decided.allowed:
                await error_response(rate_limited(decided))(scope, receive, send_with_rate_headers)
                return
        await self.app(scope, receive, send_with_rate_headers)
