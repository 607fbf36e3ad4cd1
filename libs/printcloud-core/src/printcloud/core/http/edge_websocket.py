"""uvicorn's sans-I/O WebSocket protocol as both public ports serve it: every HTTP answer it gives
instead of a handshake is the spec's envelope with a request id and the security headers.

These answers leave it without passing through an application's HTTP middleware:

- the WebSocket library's own refusals of a handshake it finds invalid (no `Sec-WebSocket-Key`,
  a version other than 13, a method other than GET) and uvicorn's 403 and 500 (an application that
  closed before accepting, or failed): all built by `ServerProtocol.reject`, in plain text;
- an application's denial (`websocket.http.response.start`), to which uvicorn adds no headers.
"""

from __future__ import annotations

import email.utils
import http
from typing import Any

from starlette.datastructures import MutableHeaders
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.http11 import Response
from websockets.server import ServerProtocol
from websockets.typing import StatusLike

from printcloud.contracts.errors import ApiError
from printcloud.core.http import uvicorn_websocket
from printcloud.core.http.error_envelope import add_security_headers, error_bytes, error_head
from printcloud.core.telemetry.request_ids import new_request_id

# What the library's and uvicorn's refusals become, by the status they chose. Any other is a
# handshake the library found invalid (it would answer 426 to a missing `Connection: Upgrade`, for
# one): `400 invalid_request`, as for any malformed request. The library's own text is not sent:
# it quotes the header values it refused.
_REFUSALS = {
    http.HTTPStatus.FORBIDDEN: ApiError("forbidden", "The WebSocket connection was refused."),
    http.HTTPStatus.METHOD_NOT_ALLOWED: ApiError("method_not_allowed", "A WebSocket handshake is a GET request."),
    http.HTTPStatus.INTERNAL_SERVER_ERROR: ApiError("internal_error", "An internal error occurred."),
}
INVALID_HANDSHAKE = ApiError("invalid_request", "This is not a valid WebSocket handshake (RFC 6455, section 4.1).")


def refusal_response(error: ApiError) -> Response:
    """`error` in the envelope, as a response of the WebSocket library."""
    request_id = new_request_id()
    body = error_bytes(error, request_id)
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Length", str(len(body))),
            *error_head(request_id),
        ]
    )
    return Response(error.status, http.HTTPStatus(error.status).phrase, headers, body)


class EnvelopeServerProtocol(ServerProtocol):
    """websockets' server protocol, refusing in the envelope. It adds no state of its own."""

    def reject(self, status: StatusLike, text: str) -> Response:
        return refusal_response(_REFUSALS.get(http.HTTPStatus(status), INVALID_HANDSHAKE))


class EdgeWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        uvicorn_websocket.answer_handshakes_with(self, EnvelopeServerProtocol)

    async def send(self, message: Any) -> None:
        if message["type"] == "websocket.http.response.start":
            headers = MutableHeaders(raw=list(message.get("headers", [])))
            add_security_headers(headers)
            message = {**message, "headers": headers.raw}
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            # uvicorn leaves a denial's handshake unfinished and then logs an ERROR for it when the
            # application returns: one for every agent refused (503) in a storm. Fixed upstream in
            # uvicorn pull request 3138, not yet released.
            uvicorn_websocket.mark_handshake_complete(self)
