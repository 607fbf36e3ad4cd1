"""Helpers for black-box tests: an API client per key, the operator CLI, and condition waits."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx

T = TypeVar("T")

MINIMAL_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
PDF_BASE64 = base64.b64encode(MINIMAL_PDF).decode()

PRINTCLOUD_CLI = str(Path(sys.executable).with_name("printcloud"))


def eventually(check: Callable[[], T | None], *, timeout: float = 20.0, interval: float = 0.1, what: str = "") -> T:
    """Polls `check` until it returns a truthy value; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or check}; last value: {last!r}")


def cli(database_url: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    result = subprocess.run(
        [PRINTCLOUD_CLI, *args],
        env={**os.environ, **(env or {}), "PRINTCLOUD_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, f"printcloud {' '.join(args)} failed: {result.stderr}"
    return json.loads(result.stdout)


def sql(database_url: str, statement: str, *args: object) -> None:
    """Runs one statement on the stack's database: for what the API cannot arrange, such as time
    passing for a row that expires."""

    async def run() -> None:
        connection = await asyncpg.connect(database_url)
        try:
            await connection.execute(statement, *args)
        finally:
            await connection.close()

    asyncio.run(run())


def api(base_url: str, key: str | None, *, basic: bool = False) -> httpx.Client:
    headers = {}
    auth = None
    if key is not None:
        if basic:
            auth = httpx.BasicAuth(key, "")
        else:
            headers["Authorization"] = f"Bearer {key}"
    return httpx.Client(base_url=base_url, headers=headers, auth=auth, timeout=30.0)


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The spec's envelope, with the request id equal to the X-Request-Id header."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"]
    assert error["request_id"] == response.headers["x-request-id"]
    return error


def every_item(client: httpx.Client, path: str, **params: Any) -> Iterator[dict[str, Any]]:
    """Every item of a paged list, following `nextCursor` as the spec's clients do."""
    query: dict[str, Any] = {"limit": 100, **params}
    while True:
        page = client.get(path, params=query).json()
        yield from page["data"]
        if not page["hasMore"]:
            return
        query["after"] = page["nextCursor"]
