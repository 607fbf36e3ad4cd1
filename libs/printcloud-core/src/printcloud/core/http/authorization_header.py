"""The `Authorization` header of a request to a public port: one, or none.

Two are refused rather than one of them picked: a proxy, a framework and the gateway may each pick
a different one (the first, the last, both joined by a comma), and a request that means two
credentials at once is a mistake or an attempt to slip one past whatever checked the other.
"""

from __future__ import annotations

from starlette.datastructures import Headers

from printcloud.contracts.errors import ApiError

TWO_CREDENTIALS = ApiError("invalid_request", "Send one `Authorization` header, not several.")


def authorization(headers: Headers) -> str | None:
    """The request's one `Authorization` value, or None; several raise `400 invalid_request`."""
    values = headers.getlist("authorization")
    if len(values) > 1:
        raise TWO_CREDENTIALS
    return values[0] if values else None
