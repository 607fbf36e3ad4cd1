"""A webhook receiver for the bench, in a process of its own: answers every request 200 at once
over keep-alive connections and, on SIGTERM, prints how many arrived and when the first and last did.

`python -m printcloud.devstack.bench.receiver PORT`
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time

import uvloop

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class _Arrivals:
    def __init__(self) -> None:
        self.count = 0
        self.first = 0.0
        self.last = 0.0

    def arrived(self) -> None:
        now = time.time()
        self.first = self.first or now
        self.last = now
        self.count += 1


async def _serve(port: int) -> None:
    arrivals = _Arrivals()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                start = head.lower().find(b"content-length:")
                if start >= 0:
                    await reader.readexactly(int(head[start + 15 : head.index(b"\r\n", start)]))
                arrivals.arrived()
                writer.write(ANSWER)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=1024)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    print("listening", flush=True)
    await stop.wait()
    server.close()
    print(json.dumps({"count": arrivals.count, "first": arrivals.first, "last": arrivals.last}), flush=True)


if __name__ == "__main__":
    uvloop.run(_serve(int(sys.argv[1])))
