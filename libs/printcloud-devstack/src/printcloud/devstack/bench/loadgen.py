"""The load generator: raw HTTP/1.1 over keep-alive connections on uvloop,
in a process of its own, so that its cost neither shares the bench's interpreter nor hides in the
figures. A request is prepared bytes; a response is read by its Content-Length and nothing more.

`python -m printcloud.devstack.bench.loadgen` reads a `LoadSpec` as JSON on stdin and writes a
`LoadResult` as JSON on stdout; `run_load` does both from the bench.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field

import uvloop


@dataclass(frozen=True)
class LoadSpec:
    host: str
    port: int
    # Raw requests, sent in turn across all connections (e.g. one per organization's key).
    requests: list[str]
    concurrency: int
    # Stop after this long, or once `total` requests were answered, whichever comes first.
    seconds: float = 8.0
    total: int = 0
    # Latencies of the first seconds are left out: connections open, caches fill.
    warmup_seconds: float = 1.0
    # Requests a second across all connections, each sent at its turn (a connection still waits for
    # its answer before its next); 0: each connection sends its next as soon as it is answered.
    rate: float = 0.0


@dataclass
class LoadResult:
    answered: int = 0
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    cpu_seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    start = head.lower().find(b"content-length:")
    if start < 0:
        raise RuntimeError("a response without Content-Length")
    length = int(head[start + 15 : head.index(b"\r\n", start)])
    await reader.readexactly(length)
    return status


async def _generate(spec: LoadSpec) -> LoadResult:
    result = LoadResult()
    requests = [r.encode("latin-1") for r in spec.requests]
    began = time.perf_counter()
    measured_from = began + spec.warmup_seconds
    deadline = measured_from + spec.seconds
    issued = 0

    async def connection() -> None:
        nonlocal issued
        reader, writer = await asyncio.open_connection(spec.host, spec.port)
        try:
            while time.perf_counter() < deadline and (not spec.total or issued < spec.total):
                turn = issued
                request = requests[turn % len(requests)]
                issued += 1
                if spec.rate:
                    await asyncio.sleep(began + turn / spec.rate - time.perf_counter())
                sent = time.perf_counter()
                writer.write(request)
                status = await _read_response(reader)
                answered = time.perf_counter()
                result.answered += 1
                result.statuses[str(status)] = result.statuses.get(str(status), 0) + 1
                if sent >= measured_from or spec.total:
                    result.latencies_ms.append((answered - sent) * 1000)
        finally:
            writer.close()

    if spec.total:  # a fixed amount of work: all of it is measured, from the first request
        measured_from = began
        deadline = began + spec.seconds
    await asyncio.gather(*(connection() for _ in range(spec.concurrency)))
    result.seconds = time.perf_counter() - measured_from
    return result


def run_load(spec: LoadSpec) -> LoadResult:
    """Runs `spec` in a load generator process of its own and returns what it measured."""
    out = subprocess.run(
        [sys.executable, "-m", "printcloud.devstack.bench.loadgen"],
        input=json.dumps(asdict(spec)),
        capture_output=True,
        text=True,
        check=True,
    )
    return LoadResult(**json.loads(out.stdout))


def request(method: str, path: str, *, key: str = "", body: bytes = b"", content_type: str = "") -> str:
    """A raw keep-alive HTTP/1.1 request, as the load generator sends it."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if key:
        lines.append(f"Authorization: Bearer {key}")
    if body or method == "POST":
        lines += [f"Content-Type: {content_type or 'application/json'}", f"Content-Length: {len(body)}"]
    return "\r\n".join(lines) + "\r\n\r\n" + body.decode("latin-1")


def main() -> None:
    spec = LoadSpec(**json.loads(sys.stdin.read()))
    started_cpu = time.process_time()
    result = uvloop.run(_generate(spec))
    result.cpu_seconds = time.process_time() - started_cpu
    json.dump(asdict(result), sys.stdout)


if __name__ == "__main__":
    main()
