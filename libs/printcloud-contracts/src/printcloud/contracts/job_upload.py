"""How a job's document travels to jobs: on the `CreateJob` stream, the request first, then the
decoded document in slices (the gateway sends with `upload_parts`; jobs receives with
`read_upload`); or, when it fits in one slice, in one `CreateSmallJob` message (`small_upload`,
`read_small_upload`), which costs both ends less than a stream.

Slicing keeps each side at one copy of a 25 MB document: a single message would be held once
more in gRPC's buffers and once more as the message's own bytes.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterator

from printcloud.contracts.errors import ApiError
from printcloud.v1 import jobs_pb2

MAX_DOCUMENT_BYTES = 25 * 1024 * 1024
SLICE_BYTES = 1024 * 1024


def small_upload(
    request: jobs_pb2.CreateJobRequest, document: bytes | bytearray | memoryview | None
) -> jobs_pb2.CreateSmallJobRequest | None:
    """The job in one message, or None when its document is larger than one slice."""
    if document is None:
        return jobs_pb2.CreateSmallJobRequest(request=request)
    if len(document) > SLICE_BYTES:
        return None
    return jobs_pb2.CreateSmallJobRequest(request=request, document=bytes(document))


def read_small_upload(message: jobs_pb2.CreateSmallJobRequest) -> tuple[jobs_pb2.CreateJobRequest, bytes | None]:
    """As `read_upload` answers for the same job sent on the stream."""
    if len(message.document) > SLICE_BYTES:
        raise ApiError("invalid_request", "A document larger than one slice goes on the CreateJob stream.")
    return message.request, message.document or None


def upload_parts(
    request: jobs_pb2.CreateJobRequest, document: bytes | bytearray | memoryview | None
) -> Iterator[jobs_pb2.CreateJobPart]:
    yield jobs_pb2.CreateJobPart(request=request)
    if document is None:
        return
    view = memoryview(document)
    for offset in range(0, len(view), SLICE_BYTES):
        yield jobs_pb2.CreateJobPart(data=bytes(view[offset : offset + SLICE_BYTES]))


async def read_upload(
    parts: AsyncIterable[jobs_pb2.CreateJobPart],
) -> tuple[jobs_pb2.CreateJobRequest, bytearray | None]:
    """The request and the document reassembled (None when no slice came); the size is capped
    as the slices arrive, so an oversized stream is refused before it is held."""
    request: jobs_pb2.CreateJobRequest | None = None
    document: bytearray | None = None
    async for part in parts:
        if part.WhichOneof("part") == "request":
            if request is not None:
                raise ApiError("invalid_request", "The job's request was sent twice.")
            request = part.request
            continue
        if request is None:
            raise ApiError("invalid_request", "The job's request must come before its document.")
        if document is None:
            document = bytearray()
        if len(document) + len(part.data) > MAX_DOCUMENT_BYTES:
            raise ApiError("content_too_large", "The decoded document is larger than 25 MB.")
        document += part.data
    if request is None:
        raise ApiError("invalid_request", "The job's request is missing.")
    return request, document
