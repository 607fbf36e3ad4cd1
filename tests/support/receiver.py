"""A real HTTP webhook receiver on 127.0.0.1 whose answers a test programs, recording every request.

It runs in its own threads, so both synchronous end-to-end tests and asyncio service tests can use it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() when the request arrived
    wall: float  # time.time() then, to compare with the timestamps in bodies
    client_port: int  # tells apart the sender's connections


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


Responder = Callable[[Received, int], Answer]  # (request, how many this path received before it)


def always(answer: Answer) -> Responder:
    return lambda _request, _count: answer


class _Server(ThreadingHTTPServer):
    # Senders open many connections at once; the default backlog of 5 would refuse some of them.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A sender that gave up (a timeout test, a killed service) is expected, not an error."""


class Receiver:
    def __init__(self, responder: Responder | None = None) -> None:
        self.responder = responder or always(Answer())
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                if len(body) < length:
                    # The sender went away mid-body (a killed process): no request was made.
                    self.close_connection = True
                    return
                request = Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                                   body, time.monotonic(), time.time(), self.client_address[1])  # fmt: skip
                with receiver._lock:
                    count = sum(1 for r in receiver.requests if r.path == request.path)
                    receiver.requests.append(request)
                answer = receiver.responder(request, count)
                if answer.delay:
                    time.sleep(answer.delay)
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender gave up waiting, as a timeout test intends

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def received(self, path: str | None = None) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if path is None or r.path == path]
