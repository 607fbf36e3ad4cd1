"""`--profile DIR`: py-spy samples the named services while a figure runs, one collapsed-stack
file per figure and service (`flamegraph.pl` or speedscope read them), plus a summary of the
functions that took the most samples, by their own time and with what they called.

Only samples of a thread holding the GIL are kept. Without that, py-spy counted a thread waiting
in native code as busy: gRPC AsyncIO's completion-queue poller, which sits in `epoll_wait`, took
several times its share of the CPU in samples (docs/performance.md, "Profiles that counted
waiting"). What the samples leave out, native work outside the GIL, is in each thread's CPU from
the kernel, written beside the samples (`*.threads.txt`) and shown first in the summary."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

SAMPLES_PER_SECOND = 200


@contextlib.contextmanager
def sampled(directory: Path | None, label: str, pids: dict[str, int]) -> Iterator[None]:
    """Samples `pids` (service name to process id) for as long as the block runs."""
    if directory is None:
        yield
        return
    directory.mkdir(parents=True, exist_ok=True)
    py_spy = str(Path(sys.executable).with_name("py-spy"))
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    recorders = [
        subprocess.Popen(
            [py_spy, "record", "--pid", str(pid), "--rate", str(SAMPLES_PER_SECOND), "--format", "raw",
             "--nonblocking", "--gil", "--output", str(directory / f"{slug}.{name}.txt")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for name, pid in pids.items()
    ]  # fmt: skip
    before = {name: thread_cpu(pid) for name, pid in pids.items()}
    try:
        yield
    finally:
        for name, pid in pids.items():
            shares = thread_shares(before[name], thread_cpu(pid))
            (directory / f"{slug}.{name}.threads.txt").write_text("".join(f"{share}\n" for share in shares))
        for recorder in recorders:
            recorder.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        for recorder in recorders:
            recorder.wait()


ThreadTimes = Mapping[int, tuple[str, float]]


def thread_cpu(pid: int) -> ThreadTimes:
    """Each live thread of `pid`: its name and the CPU seconds it has used. The main thread is
    `main`; the others go by the kernel's name for them (`event_engine` for gRPC core's, `python`
    for the interpreter's own threads); nothing for a process that has ended."""
    try:
        threads = psutil.Process(pid).threads()
    except psutil.Error:
        return {}
    return {thread.id: (_thread_name(pid, thread.id), thread.user_time + thread.system_time) for thread in threads}


def _thread_name(pid: int, tid: int) -> str:
    if tid == pid:
        return "main"
    try:
        return Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
    except OSError:
        return "thread"


@dataclass(frozen=True)
class ThreadShare:
    """The CPU that the threads of one name used while a figure ran."""

    name: str
    threads: int
    seconds: float
    share: float  # of the process's CPU in the same time

    def __str__(self) -> str:
        return f"{self.share:6.1%} {self.seconds * 1000:9,.0f} ms  {self.name} ({self.threads} of them)"


def thread_shares(before: ThreadTimes, after: ThreadTimes) -> list[ThreadShare]:
    """The CPU each name of thread used between two `thread_cpu` readings, most first. A thread
    started in between counts from nothing; one that ended in between is not there to count."""
    used: dict[str, float] = {}
    threads: Counter[str] = Counter()
    for tid, (name, seconds) in after.items():
        used[name] = used.get(name, 0.0) + seconds - before.get(tid, (name, 0.0))[1]
        threads[name] += 1
    total = sum(used.values())
    if total <= 0:
        return []
    ranked = sorted(used.items(), key=lambda item: -item[1])
    return [ThreadShare(name, threads[name], seconds, seconds / total) for name, seconds in ranked]


def top_functions(collapsed: Path, count: int = 30, by_own: bool = False) -> list[tuple[str, float, float]]:
    """(function, share of samples in it alone, share with what it called), most first."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in collapsed.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        frames = stack.split(";")
        n = int(samples)
        total += n
        own[frames[-1]] += n
        for frame in set(frames):
            inclusive[frame] += n
    if not total:
        return []
    ranked = (own if by_own else inclusive).most_common(count)
    return [(frame, own[frame] / total, inclusive[frame] / total) for frame, _ in ranked]


def main() -> None:
    """`python -m printcloud.devstack.bench.profile FILE [--own]`: the summary of one recording."""
    by_own = "--own" in sys.argv
    recording = Path(sys.argv[1])
    threads = recording.with_suffix(".threads.txt")
    if threads.exists():
        print(f"CPU by thread (the kernel's count):\n{threads.read_text()}\nsamples holding the GIL:")
    for frame, alone, inclusive in top_functions(recording, by_own=by_own):
        print(f"{alone:6.1%} {inclusive:6.1%}  {frame}")


if __name__ == "__main__":
    main()
