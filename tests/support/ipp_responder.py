"""An IPP printer of a test's own on 127.0.0.1: it answers Get-Printer-Attributes with the state,
reasons and message the test chooses (what ippeveprinter cannot be made to report, such as
`door-open` or a `stopped` device), and refuses every other operation.

Written from RFC 8010 without the agent's IPP code, so that the two do not share a mistake. It runs
in threads of its own, for synchronous end-to-end tests and asyncio tests alike.
"""

from __future__ import annotations

import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GET_PRINTER_ATTRIBUTES = 0x000B
SUCCESSFUL_OK = 0x0000
OPERATION_NOT_SUPPORTED = 0x0501
IDLE, PROCESSING, STOPPED = 3, 4, 5

_OPERATION_GROUP, _PRINTER_GROUP, _END = 0x01, 0x04, 0x03
_BOOLEAN, _ENUM, _RANGE = 0x22, 0x23, 0x33
_TEXT, _NAME, _KEYWORD, _URI, _CHARSET, _LANGUAGE = 0x41, 0x42, 0x44, 0x45, 0x47, 0x48


def _attribute(tag: int, name: str, *values: bytes) -> bytes:
    out = b""
    for index, value in enumerate(values):
        label = name.encode() if index == 0 else b""
        out += struct.pack(">bh", tag, len(label)) + label + struct.pack(">h", len(value)) + value
    return out


def _operation_attributes(body: bytes) -> dict[str, str]:
    """The operation group's text values of a request, by name (enough to see its printer-uri)."""
    found: dict[str, str] = {}
    position = 8
    if body[position : position + 1] != bytes([_OPERATION_GROUP]):
        return found
    position += 1
    while position < len(body) and body[position] >= 0x10:
        (name_length,) = struct.unpack(">h", body[position + 1 : position + 3])
        name = body[position + 3 : position + 3 + name_length].decode()
        position += 3 + name_length
        (value_length,) = struct.unpack(">h", body[position : position + 2])
        value = body[position + 2 : position + 2 + value_length]
        position += 2 + value_length
        if name:
            found[name] = value.decode(errors="replace")
    return found


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """An agent that gave up waiting (the slow-printer test) is expected, not an error."""


@dataclass
class IppResponder:
    """The printer's state as it will next answer; change the fields at any time."""

    state: int = IDLE
    reasons: list[str] = field(default_factory=lambda: ["none"])
    message: str = ""
    # Seconds to wait before answering (a printer too slow for the agent's timeout).
    delay: float = 0.0
    # `copies-supported` 1 to this, when set: a capability the device states better than its queue.
    max_copies: int | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "start() first"
        return int(self._server.server_address[1])

    def uri(self, userinfo: str = "") -> str:
        return f"ipp://{userinfo + '@' if userinfo else ''}127.0.0.1:{self.port}/ipp/print"

    def asked(self) -> int:
        """How many Get-Printer-Attributes it has answered."""
        return sum(1 for request in self.requests if request["operation"] == GET_PRINTER_ATTRIBUTES)

    def answer(self, body: bytes) -> bytes:
        version, operation, request_id = struct.unpack(">hhi", body[:8])
        self.requests.append({"operation": operation, "attributes": _operation_attributes(body)})
        head = struct.pack(
            ">hhi",
            version,
            SUCCESSFUL_OK if operation == GET_PRINTER_ATTRIBUTES else OPERATION_NOT_SUPPORTED,
            request_id,
        )
        out = head + bytes([_OPERATION_GROUP])
        out += _attribute(_CHARSET, "attributes-charset", b"utf-8")
        out += _attribute(_LANGUAGE, "attributes-natural-language", b"en")
        if operation == GET_PRINTER_ATTRIBUTES:
            out += bytes([_PRINTER_GROUP])
            out += _attribute(_NAME, "printer-name", b"responder")
            out += _attribute(_ENUM, "printer-state", struct.pack(">i", self.state))
            out += _attribute(_KEYWORD, "printer-state-reasons", *(r.encode() for r in self.reasons))
            out += _attribute(_TEXT, "printer-state-message", self.message.encode())
            out += _attribute(_BOOLEAN, "printer-is-accepting-jobs", b"\x01")
            if self.max_copies is not None:
                out += _attribute(_RANGE, "copies-supported", struct.pack(">ii", 1, self.max_copies))
        return out + bytes([_END])

    def start(self) -> IppResponder:
        responder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if responder.delay:
                    time.sleep(responder.delay)
                answer = responder.answer(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/ipp")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests assert on `requests`."""

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), name="ipp-responder", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
