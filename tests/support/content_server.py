"""A real HTTP server on 127.0.0.1 for content-URL tests: the files, redirects, slow and huge
answers a fetch must cope with. Only loopback is ever a target (see TESTING.md)."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    # Bytes streamed after `body`, in 1 MB chunks, without a Content-Length: a server that lies or never ends.
    stream_bytes: int = 0
    delay: float = 0.0
    # Answered only once this many requests wait together (a 503 after 30 s without them): proves
    # that a client fetches that many at once.
    together: threading.Barrier | None = None
    basic_auth: tuple[str, str] | None = None


@dataclass
class Hit:
    path: str
    host: str
    authorization: str | None


class ContentServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[Hit] = []
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _empty(self, status: int) -> None:
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                server.hits.append(Hit(self.path, self.headers.get("Host", ""), self.headers.get("Authorization")))
                route = server.routes.get(self.path.split("?")[0])
                if route is None:
                    self._empty(404)
                    return
                if route.delay:
                    server._stop.wait(route.delay)
                if route.together is not None:
                    try:
                        route.together.wait(timeout=30)
                    except threading.BrokenBarrierError:
                        self._empty(503)
                        return
                if route.basic_auth is not None:
                    expected = "Basic " + base64.b64encode(":".join(route.basic_auth).encode()).decode()
                    if self.headers.get("Authorization") != expected:
                        self._empty(401)
                        return
                self.send_response(route.status)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                if not route.stream_bytes:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                try:
                    self.wfile.write(route.body)
                    chunk = b"\0" * (1024 * 1024)
                    for _ in range(route.stream_bytes // len(chunk)):
                        if server._stop.is_set():
                            break
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading, as a capped fetch should

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def serve(self, path: str, route: Route) -> str:
        self.routes[path] = route
        return self.url(path)

    def hits_of(self, path: str) -> list[Hit]:
        return [hit for hit in self.hits if hit.path.split("?")[0] == path]

    def start(self) -> None:
        threading.Thread(target=self.httpd.serve_forever, name="content-server", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def content_server() -> Iterator[ContentServer]:
    server = ContentServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
