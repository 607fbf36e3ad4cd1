"""The bench's CPU accounting: which process a figure's CPU went to, per request."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import psutil

from printcloud.devstack.bench.cpu import (
    CpuRow,
    PostgreSQL,
    listening_pid,
    measured,
    postgres_port,
    postgres_server,
    render_cpu,
    tree_cpu_by_process,
    tree_cpu_seconds,
)

# Burns this much CPU, then waits for its standard input to close. Told to wait, it first says
# "ready" on its standard output and burns once a line arrives: the CPU of its start is spent by then,
# and a test that counts from that moment does not count it (Python's start is tens of milliseconds
# of CPU on a slow machine, a good part of a tick-truncated 0.3 s).
BURNER = (
    "import sys, time\n{wait}end = time.process_time() + {seconds}\n"
    "while time.process_time() < end: pass\nsys.stdin.read()\n"
)
READY = "print('ready', flush=True); sys.stdin.readline()\n"


def _burner(seconds: float, wait: bool = False) -> list[str]:
    return [sys.executable, "-c", BURNER.format(seconds=seconds, wait=READY if wait else "")]


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


# The kernel's counters that psutil reads are in clock ticks, and truncated.
TICKS = 0.05


def _until_burnt(process: psutil.Process, seconds: float, since: float = 0.0) -> None:
    """Until the process has spent `seconds` of CPU more than `since`."""
    deadline = time.monotonic() + 30
    while _cpu(process) < since + seconds - TICKS:
        assert time.monotonic() < deadline, "the burner did not burn its CPU"
        time.sleep(0.01)


def test_a_process_trees_cpu_counts_its_live_children() -> None:
    # The parent starts a burner (which shares its standard input) and waits: the CPU is the child's.
    parent_code = f"import subprocess, sys\nsubprocess.Popen({_burner(0.3)!r})\nsys.stdin.read()\n"
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not psutil.Process(parent.pid).children():
            assert time.monotonic() < deadline, "the child did not start"
            time.sleep(0.01)
        (child,) = psutil.Process(parent.pid).children()
        _until_burnt(child, 0.3)
        assert tree_cpu_seconds(parent.pid) >= 0.3 - TICKS + _cpu(psutil.Process(parent.pid))
    finally:
        parent.communicate(b"")
    assert tree_cpu_seconds(parent.pid) == 0.0, "a process that is gone counts nothing"


def test_cpu_spent_while_measured_is_counted_for_its_part_alone() -> None:
    burner = subprocess.Popen(_burner(0.3, wait=True), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    idle = subprocess.Popen(_burner(0.0), stdin=subprocess.PIPE)
    assert burner.stdin is not None and burner.stdout is not None
    try:
        assert burner.stdout.readline() == b"ready\n"
        with measured({"burner": burner.pid, "idle": idle.pid}) as usage:
            # Read once the measure has begun: what the burner spends after "ready" and before
            # this line counts in both, and the wait below cannot end on CPU the measure missed.
            started = _cpu(psutil.Process(burner.pid))
            burner.stdin.write(b"go\n")
            burner.stdin.flush()
            _until_burnt(psutil.Process(burner.pid), 0.3, since=started)
        assert usage.seconds["burner"] >= 0.3 - TICKS
        assert usage.seconds["idle"] < 0.1
        assert usage.per_request_ms(100)["burner"] == usage.seconds["burner"] * 10
        assert usage.per_request_ms(0) == {}
    finally:
        burner.communicate(b"")
        idle.communicate(b"")


def test_the_listening_process_of_a_port_is_found() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert listening_pid(port) == os.getpid()
    assert listening_pid(port) is None


def test_the_database_port_is_read_from_its_url() -> None:
    assert postgres_port("postgresql+asyncpg://printcloud@127.0.0.1:5433/db") == 5433
    assert postgres_port("postgresql://127.0.0.1/db") == 5432


def test_the_cpu_table_sums_each_figure_and_keeps_every_part() -> None:
    table = render_cpu([
        CpuRow("create 16", 1000, {"api-gateway": 1.5, "jobs": 2.25}),
        CpuRow("GET /v1/printers", 500, {"api-gateway": 0.5, "devices": 0.75}),
    ])  # fmt: skip
    header, _, create, printers = table.splitlines()[1:]
    assert [c.strip() for c in header.split("|")[1:-1]] == [
        "figure", "requests", "api-gateway", "jobs", "devices", "total"
    ]  # fmt: skip
    assert [c.strip() for c in create.split("|")[1:-1]] == ["create 16", "1,000", "1.50", "2.25", "-", "3.75"]
    assert [c.strip() for c in printers.split("|")[1:-1]][-1] == "1.25"
    assert render_cpu([]) == ""


def test_a_child_exiting_while_measured_does_not_take_the_others_cpu_with_it() -> None:
    # A PostgreSQL backend that burnt CPU before the figure and exits during it, while another burns.
    parent_code = (
        "import subprocess, sys\n"
        f"done = subprocess.Popen({_burner(0.3)!r}, stdin=subprocess.PIPE)\n"
        f"busy = subprocess.Popen({_burner(0.3, wait=True)!r}, stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "busy.stdout.readline()\n"
        "print(done.pid, busy.pid, flush=True)\n"
        "sys.stdin.readline(); done.communicate(b'')\n"
        "busy.stdin.write(b'go\\n'); busy.stdin.flush()\n"
        "sys.stdin.read(); busy.communicate(b'')\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert parent.stdin is not None and parent.stdout is not None
    try:
        done_pid, busy_pid = (int(pid) for pid in parent.stdout.readline().split())
        _until_burnt(psutil.Process(done_pid), 0.3)
        started = _cpu(psutil.Process(busy_pid))
        with measured({"tree": parent.pid}) as usage:
            parent.stdin.write(b"end\n")
            parent.stdin.flush()
            _until_burnt(psutil.Process(busy_pid), 0.3, since=started)
        assert not psutil.pid_exists(done_pid) or psutil.Process(done_pid).status() == psutil.STATUS_ZOMBIE
        assert usage.seconds["tree"] >= 0.3 - TICKS
    finally:
        parent.communicate(b"")


def test_a_postgresql_servers_backends_of_other_databases_are_left_out() -> None:
    # Processes titled as PostgreSQL titles its children, under one parent as under a postmaster.
    titles = [
        "postgres: 15/main: printcloud ours 127.0.0.1(50000) idle",
        "postgres: 15/main: printcloud theirs 127.0.0.1(50001) idle",
        "postgres: walwriter",
    ]
    parent_code = (
        "import subprocess, sys\n"
        f"children = [subprocess.Popen([title, '-c', 'import sys; sys.stdin.read()'], executable=sys.executable,"
        f" stdin=subprocess.PIPE) for title in {titles!r}]\n"
        "print(' '.join(str(child.pid) for child in children), flush=True)\n"
        "sys.stdin.read()\n"
        "for child in children: child.communicate(b'')\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert parent.stdout is not None
    try:
        ours, theirs, walwriter = (int(pid) for pid in parent.stdout.readline().split())
        counted = {pid for pid, _ in tree_cpu_by_process(parent.pid, "ours")}
        assert counted == {parent.pid, ours, walwriter}
        assert {pid for pid, _ in tree_cpu_by_process(parent.pid)} == {parent.pid, ours, theirs, walwriter}
    finally:
        parent.communicate(b"")


def test_the_postgresql_server_of_a_database_url_serves_that_database() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        server = postgres_server(f"postgresql+asyncpg://printcloud@127.0.0.1:{port}/printcloud_e2e_1")
    assert server == PostgreSQL(os.getpid(), "printcloud_e2e_1")
