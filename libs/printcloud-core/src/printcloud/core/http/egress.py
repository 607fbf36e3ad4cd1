"""The one guarded client for outbound HTTP (content URLs, webhooks).

Every destination is judged twice: statically (`check_url`: scheme, length, userinfo, literal
addresses in every encoding, port) and at connect time (`resolve`: every address the name
resolves to). The request then connects to the address that was checked, never to the name
again, so a DNS answer that changes between the check and the connection (rebinding) cannot
reach a private address. Redirects are never followed and bodies are capped while streaming.
Connections are kept alive per host name (`egress_pool`), never shared between names.

The `egress_allowlist` setting (`PRINTCLOUD_EGRESS_ALLOWLIST`: comma-separated CIDRs, empty by
default) exempts chosen networks from the address rule and from the port rule, for tests and private
deployments.

Messages of both exceptions name at most the scheme, host and port: never a path, a query or
credentials, because callers store them (a job's `stateMessage`) and log them.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
import ssl
import string
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, quote, urlsplit

import aiohttp
import certifi
import yarl
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from printcloud.core.http.egress_pool import PoolsByHost
from printcloud.core.telemetry.traces import tracer

log = logging.getLogger(__name__)

DEFAULT_SCHEMES: tuple[str, ...] = ("http", "https")
DEFAULT_PORTS: tuple[int, ...] = (80, 443)
DEFAULT_MAX_URL_LENGTH = 2048
_DEFAULT_PORT_BY_SCHEME = {"http": 80, "https": 443}

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]

# Hosts made only of these characters are what inet_aton may read as an IPv4 address
# (127.1, 2130706433, 0x7f000001, 017700000001); anything else is a name.
_IPV4_LIKE = re.compile(r"^[0-9a-fA-FxX.]+$")
# Characters that parsers disagree about; a URL carrying them is refused rather than guessed at.
_AMBIGUOUS = re.compile(r"[\\\s\x00-\x1f\x7f]")
# IPv6 prefixes that carry an IPv4 address a gateway may translate to: NAT64 (RFC 6052).
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# The local-use NAT64 prefix (RFC 8215) translates inside an operator's own network, where the
# embedded address may sit anywhere in the prefix: never a public destination.
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


class EgressRefused(Exception):
    """The destination is not allowed: scheme, userinfo, length, port, private or reserved address."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class EgressFailed(Exception):
    """The destination is allowed but the exchange failed: resolution, timeout, connection, TLS, too large."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class EgressResponse:
    status: int
    headers: Mapping[str, str]  # looked up without regard to case
    body: bytes


def parse_allowlist(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def literal_address(host: str) -> IPAddress | None:
    """The address a URL host names literally, in any encoding a resolver accepts, or None for a name."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _IPV4_LIKE.match(host):
        try:
            # inet_aton reads the legacy forms (decimal, octal, hex, 127.1) exactly as resolvers do.
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, compatible, 6to4, NAT64), judged in its place."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(address.packed[-4:])
    # IPv4-compatible (::a.b.c.d, deprecated); :: and ::1 themselves are judged as IPv6.
    if address.packed[:12] == bytes(12) and int(address) > 1:
        return ipaddress.IPv4Address(address.packed[-4:])
    return None


def _is_public(address: IPAddress) -> bool:
    if not address.is_global or address.is_multicast or address in _LOCAL_NAT64:
        return False
    return not (isinstance(address, ipaddress.IPv6Address) and address.is_site_local)


def _describe(parts: SplitResult) -> str:
    """scheme://host[:port] of a URL: enough to say which destination, never a secret."""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


async def _getaddrinfo(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[str] = []
    for _family, _type, _proto, _canonname, sockaddr in infos:
        if sockaddr[0] not in addresses:
            addresses.append(str(sockaddr[0]))
    return addresses


class EgressGuard:
    def __init__(self, allowlist: Sequence[str] = ()) -> None:
        self.allowlist: tuple[Network, ...] = tuple(ipaddress.ip_network(cidr, strict=False) for cidr in allowlist)
        self.resolver: Resolver = _getaddrinfo
        self._tls: ssl.SSLContext | None = None
        self._pools = PoolsByHost(lambda: self._tls_context)

    @property
    def _tls_context(self) -> ssl.SSLContext:
        # Built once: loading the CA bundle costs tens of milliseconds, far more than a delivery.
        if self._tls is None:
            self._tls = ssl.create_default_context(cafile=certifi.where())
        return self._tls

    @classmethod
    def from_setting(cls, allowlist: str) -> EgressGuard:
        """The guard for an `egress_allowlist` setting: comma-separated CIDRs."""
        return cls(parse_allowlist(allowlist))

    async def aclose(self) -> None:
        """Closes the connections kept alive for later requests."""
        await self._pools.aclose()

    def _allowlisted(self, address: IPAddress) -> bool:
        judged: list[IPAddress] = [address]
        if isinstance(address, ipaddress.IPv6Address) and (embedded := _embedded_ipv4(address)) is not None:
            judged.append(embedded)
        return any(candidate in network for candidate in judged for network in self.allowlist)

    def address_allowed(self, address: IPAddress) -> bool:
        """Public unicast, or inside the allowlist. IPv6 forms of an IPv4 address are judged by it."""
        if self._allowlisted(address):
            return True
        if isinstance(address, ipaddress.IPv6Address):
            embedded = _embedded_ipv4(address)
            if embedded is not None:
                return _is_public(embedded)
        return _is_public(address)

    def _split(self, url: str, schemes: Collection[str], max_length: int) -> SplitResult:
        if len(url) > max_length:
            raise EgressRefused(f"The URL is longer than {max_length} characters.")
        if _AMBIGUOUS.search(url):
            raise EgressRefused("The URL contains whitespace, control characters or backslashes.")
        try:
            parts = urlsplit(url)
        except ValueError:
            raise EgressRefused("The URL cannot be parsed.") from None
        scheme = parts.scheme.lower()
        if scheme not in schemes:
            raise EgressRefused("The URL scheme must be " + " or ".join(sorted(schemes)) + ".")
        if "@" in parts.netloc:
            raise EgressRefused("The URL must not contain a user name or password.")
        if not parts.hostname:
            raise EgressRefused("The URL has no host.")
        try:
            parts.port  # noqa: B018 - raises for a port that is not a number from 0 to 65535
        except ValueError:
            raise EgressRefused("The URL's port is not valid.") from None
        return parts

    @staticmethod
    def _port(parts: SplitResult) -> int:
        return parts.port if parts.port is not None else _DEFAULT_PORT_BY_SCHEME.get(parts.scheme.lower(), 0)

    def _refuse_address(self, parts: SplitResult, address: IPAddress) -> None:
        if not self.address_allowed(address):
            # The message reaches the caller: naming what a name resolved to would make the refusal
            # an oracle for internal DNS, so the address goes to the debug log only.
            log.debug("egress refused", extra={"destination": _describe(parts), "address": str(address)})
            raise EgressRefused(f"{_describe(parts)} is a private or reserved address.")

    def _refuse_port(self, parts: SplitResult, ports: Collection[int] | None) -> None:
        if ports is not None and self._port(parts) not in ports:
            allowed = ", ".join(str(port) for port in sorted(ports))
            raise EgressRefused(f"{_describe(parts)}: only ports {allowed} are allowed.")

    def check_url(
        self,
        url: str,
        *,
        schemes: Collection[str] = DEFAULT_SCHEMES,
        ports: Collection[int] | None = DEFAULT_PORTS,
        max_length: int = DEFAULT_MAX_URL_LENGTH,
    ) -> None:
        """Static checks; raises EgressRefused. A name's addresses are judged later, by `resolve`."""
        parts = self._split(url, schemes, max_length)
        address = literal_address(parts.hostname or "")
        if address is not None:
            self._refuse_address(parts, address)
            if not self._allowlisted(address):
                self._refuse_port(parts, ports)
        elif not self.allowlist:
            # Without an allowlist no address of the name can exempt the port, so say so now.
            self._refuse_port(parts, ports)

    async def check_port(
        self, url: str, *, ports: Collection[int] = DEFAULT_PORTS, schemes: Collection[str] = DEFAULT_SCHEMES
    ) -> None:
        """The port rule when a URL is accepted (after `check_url`), for a host name too: a port
        outside `ports` passes only when every address the name resolves to is in the allowlist.
        A name that does not resolve proves no exemption, so it is refused as well."""
        parts = self._split(url, schemes, len(url))
        host = parts.hostname or ""
        if self._port(parts) in ports or literal_address(host) is not None:
            return  # a literal address was judged by `check_url`
        try:
            resolved = await self.resolver(host, self._port(parts))
            addresses = [ipaddress.ip_address(text.split("%")[0]) for text in resolved]
        except (OSError, UnicodeError, ValueError):
            addresses = []
        if not addresses or not all(self._allowlisted(address) for address in addresses):
            self._refuse_port(parts, ports)

    async def resolve(
        self, url: str, *, ports: Collection[int] | None = DEFAULT_PORTS, schemes: Collection[str] = DEFAULT_SCHEMES
    ) -> list[IPAddress]:
        """Every address of the URL's host, all of them allowed; raises EgressRefused (or EgressFailed
        when the name does not resolve)."""
        parts = self._split(url, schemes, len(url))
        host = parts.hostname or ""
        literal = literal_address(host)
        if literal is not None:
            addresses: list[IPAddress] = [literal]
        else:
            try:
                resolved = await self.resolver(host, self._port(parts))
            except (OSError, UnicodeError):
                raise EgressFailed(f"{_describe(parts)}: the name could not be resolved.") from None
            addresses = []
            for text in resolved:
                try:
                    addresses.append(ipaddress.ip_address(text.split("%")[0]))
                except ValueError:
                    raise EgressRefused(f"{_describe(parts)} resolved to something that is not an address.") from None
            if not addresses:
                raise EgressFailed(f"{_describe(parts)}: the name could not be resolved.")
        # One bad address is enough to refuse: a resolver may hand out any of them.
        for address in addresses:
            self._refuse_address(parts, address)
        if not all(self._allowlisted(address) for address in addresses):
            self._refuse_port(parts, ports)
        return addresses

    async def request(
        self,
        method: str,
        url: str,
        *,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        auth: tuple[str, str] | None = None,
        timeout: float,
        max_body_bytes: int,
        truncate: bool = False,
        schemes: Collection[str] = DEFAULT_SCHEMES,
        ports: Collection[int] | None = DEFAULT_PORTS,
    ) -> EgressResponse:
        """One exchange with the checked address, bounded by `timeout` seconds in total.

        A 3xx is returned as it is (never followed). The body stops at `max_body_bytes`: kept when
        `truncate`, else EgressFailed.

        Each exchange is a client span naming the method, scheme, host and port, never the path or
        query (they can hold credentials). No trace context is sent: the other end is a stranger.
        """
        try:
            parts = urlsplit(url)
        except ValueError:
            parts = urlsplit("")  # check_url refuses it below, with its own reason
        with _client_span(method, parts) as span:
            try:
                response = await self._request(
                    method, url, parts, content, headers, auth, timeout, max_body_bytes, truncate, schemes, ports
                )
            except (EgressRefused, EgressFailed) as exc:
                span.set_attribute("error.type", type(exc).__name__)
                span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
                raise
            span.set_attribute("http.response.status_code", response.status)
            if response.status >= 500:
                span.set_status(Status(StatusCode.ERROR, str(response.status)))
            return response

    async def _request(
        self,
        method: str,
        url: str,
        parts: SplitResult,
        content: bytes | None,
        headers: Mapping[str, str] | None,
        auth: tuple[str, str] | None,
        timeout: float,
        max_body_bytes: int,
        truncate: bool,
        schemes: Collection[str],
        ports: Collection[int] | None,
    ) -> EgressResponse:
        self.check_url(url, schemes=schemes, ports=ports)
        try:
            target = yarl.URL(url)
        except ValueError:
            raise EgressRefused("The URL cannot be parsed.") from None
        if (parts.hostname or "").lower() not in {(target.host or "").lower(), (target.raw_host or "").lower()}:
            # The client would read the host differently from the check: refuse instead of guessing.
            raise EgressRefused("The URL's host is ambiguous.")
        try:
            async with asyncio.timeout(timeout):
                addresses = await self.resolve(url, ports=ports, schemes=schemes)
                return await self._exchange(
                    parts, target, addresses, method, content, headers, auth, timeout, max_body_bytes, truncate
                )
        except TimeoutError:
            raise EgressFailed(f"{_describe(parts)}: no complete answer within {timeout:g} seconds.") from None

    async def _exchange(
        self,
        parts: SplitResult,
        target: yarl.URL,
        addresses: list[IPAddress],
        method: str,
        content: bytes | None,
        headers: Mapping[str, str] | None,
        auth: tuple[str, str] | None,
        timeout: float,
        max_body_bytes: int,
        truncate: bool,
    ) -> EgressResponse:
        # The Host header and TLS SNI keep the name; the socket goes to the checked address.
        scheme, port, name = target.scheme, self._port(parts), target.raw_host or ""
        shown_port = "" if port == _DEFAULT_PORT_BY_SCHEME.get(scheme) else f":{port}"
        request_headers = {**(headers or {}), "Host": (f"[{name}]" if ":" in name else name) + shown_port}
        if auth:
            request_headers["Authorization"] = aiohttp.encode_basic_auth(*auth, encoding="utf-8")
        path_and_query = _path_and_query(parts)
        last_error = "no address to connect to"
        async with self._pools.lease(name) as client:
            for address in addresses:
                literal = f"[{address}]" if address.version == 6 else str(address)
                checked = yarl.URL(f"{scheme}://{literal}:{port}{path_and_query}", encoded=True)
                try:
                    with _failures(parts, timeout, max_body_bytes):
                        async with client.request(
                            method,
                            checked,
                            data=content,
                            headers=request_headers,
                            allow_redirects=False,
                            server_hostname=name if scheme == "https" else None,
                        ) as response:
                            body = await _read_capped(response, max_body_bytes, truncate)
                except _ConnectFailed as exc:
                    last_error = str(exc)
                    continue  # the next address of the name may answer
                return EgressResponse(status=response.status, headers=response.headers, body=body)
        raise EgressFailed(f"{_describe(parts)}: connection failed ({last_error}).")


def _path_and_query(parts: SplitResult) -> str:
    """The path and query as the caller wrote them, only what HTTP cannot carry raw (non-ASCII)
    percent-encoded: an escape like %2F in a signed URL's query must reach the server unchanged."""
    raw = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return quote(raw, safe=string.punctuation)


def _client_span(method: str, parts: SplitResult) -> contextlib.AbstractContextManager[Span]:
    attributes: dict[str, str | int] = {"http.request.method": method.upper(), "url.scheme": parts.scheme}
    try:
        if parts.hostname:
            attributes["server.address"] = parts.hostname
        if parts.port:
            attributes["server.port"] = parts.port
    except ValueError:
        pass  # a malformed port: check_url refuses it, the span just does not name it
    return tracer().start_as_current_span(
        f"{method.upper()}", kind=SpanKind.CLIENT, attributes=attributes, record_exception=False
    )


class _TooLarge(Exception):
    pass


class _ConnectFailed(Exception):
    pass


@contextlib.contextmanager
def _failures(parts: SplitResult, timeout: float, max_body_bytes: int) -> Iterator[None]:
    """The client's errors as EgressFailed. Their own text may quote the URL, so only their kind is kept."""
    where = _describe(parts)
    try:
        yield
    except aiohttp.ClientConnectorError as exc:  # the TLS handshake's failures included
        raise _ConnectFailed(type(exc).__name__) from None
    except TimeoutError:
        raise EgressFailed(f"{where}: no complete answer within {timeout:g} seconds.") from None
    except aiohttp.ClientError as exc:
        raise EgressFailed(f"{where}: the HTTP exchange failed ({type(exc).__name__}).") from None
    except _TooLarge:
        raise EgressFailed(f"{where}: the answer is larger than {max_body_bytes} bytes.") from None


async def _read_capped(response: aiohttp.ClientResponse, max_body_bytes: int, truncate: bool) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if not truncate and declared.isdigit() and int(declared) > max_body_bytes:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    # The stream yields decoded bytes, so a compressed answer cannot expand past the cap.
    async for chunk in response.content.iter_any():
        if size + len(chunk) > max_body_bytes:
            if not truncate:
                raise _TooLarge
            chunks.append(chunk[: max_body_bytes - size])
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
