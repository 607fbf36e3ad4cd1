"""A durable record of what a virtual printer printed, one JSON line per job handed to its "paper".

Only the fault suite turns it on: it is how a test tells "printed twice" from "reported twice".
Each line is appended with a single write to a file opened in append mode, so lines of jobs
printed at once never interleave and a process killed right after the write still leaves it there.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path


class PrintLedger:
    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, job_id: str, printer: str) -> None:
        line = json.dumps({"jobId": job_id, "printer": printer, "at": time.time()}) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)


def printed_jobs(path: Path) -> list[str]:
    """Every job id printed, once per print, in the order printed."""
    if not path.exists():
        return []
    return [json.loads(line)["jobId"] for line in path.read_text().splitlines() if line.strip()]
