"""What both ends of a call agree on: how large a message may be, and how an `ApiError` travels as
the call's status, so that the caller raises the code the service chose."""

from __future__ import annotations

import json
import logging

import grpc

from printcloud.contracts.errors import ApiError

log = logging.getLogger(__name__)

# Files travel in 1 MB slices (`contracts.job_upload`, `ReadJobFile`); lists and the rest are small.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
MESSAGE_SIZE_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]

_STATUS_BY_HTTP = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.ABORTED,
    410: grpc.StatusCode.FAILED_PRECONDITION,
    413: grpc.StatusCode.INVALID_ARGUMENT,
    422: grpc.StatusCode.FAILED_PRECONDITION,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    503: grpc.StatusCode.UNAVAILABLE,
}


def backing_service_unavailable() -> ApiError:
    """A caller's answer when what serves it is down or restarting: the service it called, or that
    service's database. A new error each time, as a raised one carries its own traceback."""
    return ApiError("service_unavailable", "A backing service is unavailable; retry with backoff.")


def encode_error(error: ApiError) -> str:
    return json.dumps({"code": error.code, "message": error.message, "details": error.details})


def decode_error(exc: grpc.aio.AioRpcError) -> ApiError:
    try:
        body = json.loads(exc.details() or "")
        return ApiError(body["code"], body["message"], body.get("details"))
    except (ValueError, KeyError, TypeError):
        pass
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return backing_service_unavailable()
    log.error("unexpected gRPC failure", extra={"grpc_code": str(exc.code()), "grpc_details": exc.details()})
    return ApiError("internal_error", "An internal error occurred.")


def grpc_status(error: ApiError) -> grpc.StatusCode:
    return _STATUS_BY_HTTP.get(error.status, grpc.StatusCode.UNKNOWN)
