"""Fetches a job's file from the agent-gateway and proves it is the file the service stored."""

from __future__ import annotations

import base64
import binascii
import hashlib

import httpx


class DownloadError(Exception):
    pass


def checked_content(content: str, *, sha256: str, size: int) -> bytes:
    """The file a job message carried, held to the same proof as a download."""
    try:
        data = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise DownloadError("the job's content is not base64") from None
    if len(data) != size:
        raise DownloadError(f"the job's content has {len(data)} bytes, expected {size}")
    if hashlib.sha256(data).hexdigest() != sha256:
        raise DownloadError("the job's content does not match its fileSha256")
    return data


async def download_job_file(
    client: httpx.AsyncClient, url: str, *, sha256: str, size: int, traceparent: str = ""
) -> bytes:
    digest = hashlib.sha256()
    chunks: list[bytes] = []
    received = 0
    headers = {"traceparent": traceparent} if traceparent else None
    async with client.stream("GET", url, headers=headers) as response:
        if response.status_code != 200:
            raise DownloadError(f"file download answered HTTP {response.status_code}")
        async for chunk in response.aiter_bytes():
            received += len(chunk)
            if received > size:
                raise DownloadError(f"file is larger than the announced {size} bytes")
            digest.update(chunk)
            chunks.append(chunk)
    if received != size:
        raise DownloadError(f"file has {received} bytes, expected {size}")
    if digest.hexdigest() != sha256:
        raise DownloadError("file SHA-256 does not match the job's fileSha256")
    return b"".join(chunks)
