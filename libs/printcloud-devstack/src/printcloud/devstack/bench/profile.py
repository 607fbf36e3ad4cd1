"""`--profile DIR`: py-spy samples the named services while a figure runs, one collapsed-stack
file per figure and service (`flamegraph.pl` or speedscope read them), plus a summary of the
functions that took the most samples, by their own time and with what they called."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

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
             "--nonblocking", "--output", str(directory / f"{slug}.{name}.txt")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for name, pid in pids.items()
    ]  # fmt: skip
    try:
        yield
    finally:
        for recorder in recorders:
            recorder.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        for recorder in recorders:
            recorder.wait()


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
    for frame, alone, inclusive in top_functions(Path(sys.argv[1]), by_own=by_own):
        print(f"{alone:6.1%} {inclusive:6.1%}  {frame}")


if __name__ == "__main__":
    main()
