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
from urllib.parse import urlsplit

import httpx

from printcloud.agent.backends.cups import ipp
from printcloud.agent.backends.cups.printer_condition import DeviceStatus

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


# A device that has not answered by then is reported as not answering: discovery waits for it.
DEVICE_TIMEOUT_SECONDS = 2.0
IPP_PORT = 631


def _device_address(uri: str) -> tuple[str, str, str] | None:
    """(HTTP URL to post to, printer-uri to name, host:port for people) of an ipp:// or ipps://
    device URI, without the credentials a URI may carry; None for any other URI."""
    parts = urlsplit(uri)
    if parts.scheme not in ("ipp", "ipps") or not parts.hostname:
        return None
    try:
        port = parts.port or IPP_PORT
    except ValueError:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    where = f"{host}:{port}"
    http_scheme = "https" if parts.scheme == "ipps" else "http"
    path = parts.path or "/"
    return f"{http_scheme}://{where}{path}", f"{parts.scheme}://{where}{path}", where


def _failure(error: httpx.HTTPError, timeout: float) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    if isinstance(error, httpx.ConnectError):
        cause: BaseException | None = error
        while cause is not None and not isinstance(cause, ConnectionRefusedError):
            cause = cause.__cause__ or cause.__context__
        return "connection refused" if cause is not None else "cannot connect"
    return "the connection failed"


async def ask_device(
    uri: str, requested: tuple[str, ...], *, timeout: float = DEVICE_TIMEOUT_SECONDS
) -> DeviceStatus | None:
    """Get-Printer-Attributes from an IPP Everywhere device itself, within `timeout`; None when the
    URI is not one the agent can ask (only ipp:// and ipps://).

    An ipps device is asked without checking its certificate: printers' certificates are mostly
    self-signed (cupsd trusts them on first use), and the request carries nothing secret; what
    the answer can change is the state shown and the options offered.
    """
    address = _device_address(uri)
    if address is None:
        return None
    url, printer_uri, where = address
    body = ipp.encode_request(
        ipp.GET_PRINTER_ATTRIBUTES,
        1,
        [
            (
                ipp.OPERATION_GROUP,
                [
                    ipp.Attribute.of("printer-uri", ipp.URI, printer_uri),
                    ipp.Attribute.of("requested-attributes", ipp.KEYWORD, *requested),
                ],
            )
        ],
    )
    try:
        async with httpx.AsyncClient(timeout=timeout, verify=False) as client:
            answer = await client.post(url, content=body, headers={"Content-Type": "application/ipp"})
    except httpx.HTTPError as error:
        return DeviceStatus(where, failure=_failure(error, timeout))
    if answer.status_code != 200:
        return DeviceStatus(where, failure=f"HTTP {answer.status_code} instead of an IPP answer")
    try:
        response = ipp.decode_response(answer.content)
    except ipp.IppError:
        return DeviceStatus(where, failure="not an IPP answer")
    if not response.ok:
        return DeviceStatus(where, failure=response.status_message())
    return DeviceStatus(where, attributes=response.first(ipp.PRINTER_GROUP))
