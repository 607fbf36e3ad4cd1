"""A TCP balancer on 127.0.0.1 in front of a gateway's replicas, as a Kubernetes Service is in front
of a Deployment's ready pods: each new connection goes to the next backend, round robin; a backend
taken out gets no new connection, and the ones it holds last until it closes them (it drains)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading


class Balancer:
    """`port` 0 takes a free one, known once started."""

    def __init__(self, port: int, backends: list[int]) -> None:
        self.port = port
        self._backends = list(backends)
        self._turn = itertools.count()
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"balancer-{port}", daemon=True)
        self.connections = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def backends(self) -> list[int]:
        with self._lock:
            return list(self._backends)

    def add(self, port: int) -> None:
        with self._lock:
            self._backends.append(port)

    def remove(self, port: int) -> None:
        with self._lock:
            self._backends.remove(port)

    def start(self) -> Balancer:
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError(f"the balancer on {self.port} did not start")
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self.port = server.sockets[0].getsockname()[1]
        self._started.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            connections = asyncio.all_tasks(self._loop)
            for task in connections:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*connections, return_exceptions=True))
            self._loop.close()

    def _next_backends(self) -> list[int]:
        """Every backend once, starting with the one whose turn it is."""
        with self._lock:
            backends = list(self._backends)
        if not backends:
            return []
        start = next(self._turn) % len(backends)
        return backends[start:] + backends[:start]

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        for port in self._next_backends():
            try:
                backend_reader, backend_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue  # gone between the choice and the connect: as kube-proxy, try the next
            # Each side's end (FIN) is passed on; the connection ends once both sides ended theirs.
            await asyncio.gather(
                _pipe(client_reader, backend_writer), _pipe(backend_reader, client_writer), return_exceptions=True
            )
            backend_writer.close()
            break
        client_writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.write_eof()
