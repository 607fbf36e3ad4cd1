"""Service-to-service authentication: every gRPC call carries a signed token naming its caller, and
each service answers only the callers that need it.

A token is `v1.<caller>.<issued at, unix seconds>.<HMAC-SHA256 of caller and time>`, signed with
the installation's internal secret (`PRINTCLOUD_INTERNAL_AUTH_SECRET`, shared by the services that
speak gRPC). A callee accepts it for `TOKEN_LIFETIME_SECONDS` either side of its own clock. The
services trust the organization a request names, so a call without a valid token, or from a
caller not listed for that service, is refused before any handler runs.

One shared key means a service that leaks it can sign as any other: the token stops callers that
have no key (anything else that can reach the port), and `ALLOWED_CALLERS` stops a service from
calling what it has no business calling. The chart's NetworkPolicy narrows who can connect at all.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable

TOKEN_METADATA_KEY = "x-printcloud-service-token"
TOKEN_LIFETIME_SECONDS = 300
# A caller signs a new token this often; callees remember the tokens they verified until expiry.
REISSUE_AFTER_SECONDS = 60

API_GATEWAY = "api-gateway"
AGENT_GATEWAY = "agent-gateway"
DISPATCHER = "dispatcher"
JOBS = "jobs"
VIRTUAL_FLEET = "virtual-fleet"

# gRPC service (the package-qualified name in a method's path) -> who may call it.
ALLOWED_CALLERS: dict[str, frozenset[str]] = {
    "printcloud.v1.Jobs": frozenset({API_GATEWAY, AGENT_GATEWAY, DISPATCHER}),
    "printcloud.v1.Devices": frozenset({API_GATEWAY, AGENT_GATEWAY, JOBS, VIRTUAL_FLEET}),
    "printcloud.v1.Webhooks": frozenset({API_GATEWAY}),
}
# Callers let into a service above for only some of its methods (`package.Service/Method`): the
# virtual fleet's token must not read or change customers' computers through devices.
METHODS_OF_NARROW_CALLERS: dict[str, frozenset[str]] = {
    VIRTUAL_FLEET: frozenset(
        {"printcloud.v1.Devices/ListVirtualComputers", "printcloud.v1.Devices/IssueVirtualAgentCredential"}
    ),
}


def _signature(secret: str, caller: str, issued_at: str) -> str:
    return hmac.new(secret.encode(), f"{caller}\n{issued_at}".encode(), hashlib.sha256).hexdigest()


def mint(secret: str, caller: str, issued_at: int) -> str:
    return f"v1.{caller}.{issued_at}.{_signature(secret, caller, str(issued_at))}"


class CallerCredential:
    """What a caller sends: its token, signed anew every `REISSUE_AFTER_SECONDS`."""

    def __init__(self, caller: str, secret: str, clock: Callable[[], float] = time.time) -> None:
        self.caller = caller
        self._secret = secret
        self._clock = clock
        self._token = ""
        self._issued_at = 0

    def token(self) -> str:
        now = int(self._clock())
        if now - self._issued_at >= REISSUE_AFTER_SECONDS:
            self._token, self._issued_at = mint(self._secret, self.caller, now), now
        return self._token


class TokenVerifier:
    """What a callee checks. Verified tokens are remembered until they expire, so a busy caller
    costs one HMAC a minute, not one a call."""

    def __init__(self, secret: str, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret
        self._clock = clock
        self._verified: dict[str, tuple[str, float]] = {}

    def caller_of(self, token: str | None) -> str | None:
        """The caller a token names, or None when it is missing, malformed, forged or stale."""
        if not token:
            return None
        now = self._clock()
        known = self._verified.get(token)
        if known is not None:
            caller, expires = known
            return caller if now <= expires else None
        parts = token.split(".")
        if len(parts) != 4 or parts[0] != "v1" or not (parts[2].isascii() and parts[2].isdigit()) or len(parts[2]) > 12:
            return None
        _, caller, issued_at, signature = parts
        if not hmac.compare_digest(_signature(self._secret, caller, issued_at).encode(), signature.encode()):
            return None
        if abs(now - int(issued_at)) > TOKEN_LIFETIME_SECONDS:
            return None
        if len(self._verified) > 1000:
            self._verified = {t: entry for t, entry in self._verified.items() if entry[1] >= now}
        self._verified[token] = (caller, int(issued_at) + TOKEN_LIFETIME_SECONDS)
        return caller

    def refusal(self, method: str, token: str | None) -> str | None:
        """Why a call of `method` (`/package.Service/Method`) with `token` is refused, or None."""
        caller = self.caller_of(token)
        if caller is None:
            return "missing, invalid or expired service token"
        path = method.lstrip("/")
        service = path.partition("/")[0]
        if caller not in ALLOWED_CALLERS.get(service, frozenset()):
            return f"{caller} may not call {service}"
        narrowed = METHODS_OF_NARROW_CALLERS.get(caller)
        if narrowed is not None and path not in narrowed:
            return f"{caller} may not call {path}"
        return None
