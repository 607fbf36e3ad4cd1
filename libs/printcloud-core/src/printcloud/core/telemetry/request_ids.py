"""Request ids: a client's own when it is safe to echo and log, else one minted here; the header
that carries one and the request id of the work under way."""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

REQUEST_ID_HEADER = "x-request-id"

request_id_var: ContextVar[str | None] = ContextVar("printcloud_request_id", default=None)

_ACCEPTABLE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


def request_id_for(client_value: str | None) -> str:
    if client_value is not None and _ACCEPTABLE.fullmatch(client_value):
        return client_value
    return new_request_id()
