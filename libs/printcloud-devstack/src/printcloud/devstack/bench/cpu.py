"""Where a figure's CPU went: the CPU time each part of the stack (every service, PostgreSQL, the
broker, the load generator) spent while the figure ran, per request answered.

The targets hold a figure's CPU, every process together, to a multiple of the bare parts it is
made of (`bench.floor`). Sampling profiles say what a process does with its share; this says which
process takes it. Sampling is cheap (one read of each process's counters before and after), so the
figures measured stay as they are.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import psutil

LOAD_GENERATOR = "load generator"


def tree_cpu_seconds(pid: int, database: str = "") -> float:
    """User and system CPU of a process and its descendants alive now (PostgreSQL's backends are
    the postmaster's children); a process gone since it was listed counts nothing."""
    return sum(tree_cpu_by_process(pid, database).values())


def tree_cpu_by_process(pid: int, database: str = "") -> dict[tuple[int, float], float]:
    """The same, by process (its id and start time, so that a reused id is another process). With
    `database`, a PostgreSQL backend serving another database is left out: the server may be shared
    (other stacks' tests), and their queries are none of the figure's cost."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return {}
    spent = {}
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            if database and _backend_database(process) not in (None, database):
                continue
            times = process.cpu_times()
            spent[(process.pid, process.create_time())] = times.user + times.system
    return spent


# A client backend's title: "postgres: [cluster: ]user database host(port) activity". The server's
# own processes (checkpointer, WAL writer, autovacuum) do not match: they work for every database.
_BACKEND_TITLE = re.compile(r"postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])")


def _backend_database(process: psutil.Process) -> str | None:
    """The database a PostgreSQL client backend serves; None for any other process."""
    title = " ".join(process.cmdline())
    match = _BACKEND_TITLE.match(title)
    return match.group(1) if match else None


def listening_pid(port: int) -> int | None:
    """The process listening on a loopback TCP port (the PostgreSQL server of the stack's database)."""
    for connection in psutil.net_connections(kind="tcp"):
        if connection.status == psutil.CONN_LISTEN and connection.laddr and connection.laddr.port == port:
            return connection.pid
    return None


def postgres_port(database_url: str) -> int:
    return urlsplit(database_url.replace("+asyncpg", "")).port or 5432


@dataclass(frozen=True)
class PostgreSQL:
    """A PostgreSQL server as a part: its postmaster and children, of them only the backends of
    `database` among the client backends."""

    pid: int
    database: str


def postgres_server(database_url: str) -> PostgreSQL | None:
    """The PostgreSQL server of a database on this machine, as the part that serves that database."""
    pid = listening_pid(postgres_port(database_url))
    database = unquote(urlsplit(database_url).path.removeprefix("/"))
    return None if pid is None else PostgreSQL(pid, database)


@dataclass
class CpuUsage:
    """CPU seconds by part over one figure; filled in when its block ends."""

    seconds: dict[str, float] = field(default_factory=dict)

    def per_request_ms(self, requests: int) -> dict[str, float]:
        return {part: spent * 1000 / requests for part, spent in self.seconds.items()} if requests else {}


Part = int | PostgreSQL  # a process tree by its root's id, or a PostgreSQL server


def _part_cpu(part: Part) -> dict[tuple[int, float], float]:
    if isinstance(part, PostgreSQL):
        return tree_cpu_by_process(part.pid, part.database)
    return tree_cpu_by_process(part)


@contextlib.contextmanager
def measured(parts: Mapping[str, Part]) -> Iterator[CpuUsage]:
    """CPU spent by each of `parts` (by name) while the block runs."""
    usage = CpuUsage()
    before = {name: _part_cpu(part) for name, part in parts.items()}
    yield usage
    usage.seconds = {name: _spent_since(before[name], _part_cpu(part)) for name, part in parts.items()}


def _spent_since(before: dict[tuple[int, float], float], after: dict[tuple[int, float], float]) -> float:
    """Process by process: a PostgreSQL backend that exits meanwhile takes the CPU it had spent
    before with it, which a difference of sums would subtract from what the others spent."""
    return sum(seconds - before.get(process, 0.0) for process, seconds in after.items())


@dataclass(frozen=True)
class CpuRow:
    figure: str
    requests: int
    per_request_ms: dict[str, float]


def render_cpu(rows: list[CpuRow]) -> str:
    """One line per figure: CPU ms per request answered, by part, and their sum; "-" for a part
    not measured in that figure (not running, or its process not found)."""
    if not rows:
        return ""
    parts = list(dict.fromkeys(part for row in rows for part in row.per_request_ms))
    header = ["figure", "requests", *parts, "total"]
    lines = [header]
    for row in rows:
        cells = [f"{row.per_request_ms[part]:.2f}" if part in row.per_request_ms else "-" for part in parts]
        lines.append([row.figure, f"{row.requests:,}", *cells, f"{sum(row.per_request_ms.values()):.2f}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "| " + " | ".join("-" * w for w in widths) + " |"
    title = (
        "CPU milliseconds per request answered (a create: per job created), by part (two cores give 2,000 ms a second):"
    )
    return "\n".join([title, line(lines[0]), rule, *(line(cells) for cells in lines[1:])])
