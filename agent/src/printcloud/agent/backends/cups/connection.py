"""The thin I/O layer of the CUPS backend: IPP requests to the local cupsd over HTTP.

It talks to cupsd's domain socket when there is one, so that cupsd knows the agent's user through
the socket's peer credentials (needed to cancel the agent's own jobs), and to
http://localhost:631 otherwise. `CUPS_SERVER` (as libcups reads it) picks another: a socket path
or host[:port].
"""

from __future__ import annotations

import getpass
import itertools
import os
from pathlib import Path

import httpx

from printcloud.agent.backends.cups import ipp

# Debian and most Linux distributions, then macOS.
DOMAIN_SOCKETS = (Path("/run/cups/cups.sock"), Path("/var/run/cups/cups.sock"), Path("/private/var/run/cupsd"))
DEFAULT_PORT = 631
REQUEST_TIMEOUT_SECONDS = 30.0


class CupsUnavailable(Exception):
    """cupsd could not be reached or did not answer in IPP."""


def _server_from_environment() -> tuple[str | None, str]:
    """(domain socket or None, host:port) for `CUPS_SERVER` or the defaults."""
    configured = os.environ.get("CUPS_SERVER", "")
    if configured.startswith("/"):
        return configured, f"localhost:{DEFAULT_PORT}"
    if configured:
        host = configured if ":" in configured else f"{configured}:{DEFAULT_PORT}"
        return None, host
    socket_path = next((str(path) for path in DOMAIN_SOCKETS if path.exists()), None)
    return socket_path, f"localhost:{DEFAULT_PORT}"


class CupsConnection:
    def __init__(self, *, socket_path: str | None = None, host: str | None = None) -> None:
        default_socket, default_host = _server_from_environment()
        self.socket_path = socket_path if socket_path is not None or host is not None else default_socket
        self.host = host or default_host
        self.user = getpass.getuser()
        self._request_ids = itertools.count(1)
        transport = httpx.AsyncHTTPTransport(uds=self.socket_path) if self.socket_path else None
        self._http = httpx.AsyncClient(
            base_url=f"http://{self.host}", transport=transport, timeout=REQUEST_TIMEOUT_SECONDS
        )

    def printer_uri(self, queue: str) -> str:
        return f"ipp://{self.host}/printers/{queue}"

    def job_uri(self, job_id: int) -> str:
        return f"ipp://{self.host}/jobs/{job_id}"

    async def request(
        self,
        operation: int,
        operation_attributes: list[ipp.Attribute],
        *,
        path: str = "/",
        job_attributes: list[ipp.Attribute] | None = None,
        document: bytes = b"",
    ) -> ipp.Response:
        groups = [(ipp.OPERATION_GROUP, operation_attributes)]
        if job_attributes:
            groups.append((ipp.JOB_GROUP, job_attributes))
        body = ipp.encode_request(operation, next(self._request_ids), groups) + document
        headers = {"Content-Type": "application/ipp"}
        try:
            answer = await self._http.post(path, content=body, headers=headers)
            if (
                answer.status_code == 401
                and self.socket_path
                and "PeerCred" in answer.headers.get("WWW-Authenticate", "")
            ):
                # cupsd checks the name against the socket's peer credentials, so it cannot be forged.
                headers["Authorization"] = f"PeerCred {self.user}"
                answer = await self._http.post(path, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise CupsUnavailable(f"cannot reach cupsd ({self.socket_path or self.host}): {exc}") from exc
        if answer.status_code != 200:
            raise CupsUnavailable(f"cupsd answered HTTP {answer.status_code} to an IPP request")
        try:
            return ipp.decode_response(answer.content)
        except ipp.IppError as exc:
            raise CupsUnavailable(str(exc)) from exc

    async def aclose(self) -> None:
        await self._http.aclose()


DEVICE_TIMEOUT_SECONDS = 3.0


async def device_attributes(uri: str, requested: tuple[str, ...]) -> ipp.Attributes | None:
    """Get-Printer-Attributes from an IPP Everywhere device itself; None when it does not answer.

    Only plain ipp:// URIs: printers' ipps certificates are mostly self-signed, and the queue's own
    attributes are a sound fallback.
    """
    if not uri.startswith("ipp://"):
        return None
    rest = uri.removeprefix("ipp://")
    host, _, path = rest.partition("/")
    host = host if ":" in host.rsplit("]", 1)[-1] else f"{host}:{DEFAULT_PORT}"
    body = ipp.encode_request(
        ipp.GET_PRINTER_ATTRIBUTES,
        1,
        [
            (
                ipp.OPERATION_GROUP,
                [
                    ipp.Attribute.of("printer-uri", ipp.URI, uri),
                    ipp.Attribute.of("requested-attributes", ipp.KEYWORD, *requested),
                ],
            )
        ],
    )
    try:
        async with httpx.AsyncClient(timeout=DEVICE_TIMEOUT_SECONDS) as client:
            answer = await client.post(
                f"http://{host}/{path}", content=body, headers={"Content-Type": "application/ipp"}
            )
        response = ipp.decode_response(answer.content) if answer.status_code == 200 else None
    except (httpx.HTTPError, ipp.IppError):
        return None
    return response.first(ipp.PRINTER_GROUP) if response is not None and response.ok else None
