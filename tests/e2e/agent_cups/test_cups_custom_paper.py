"""A custom paper saved on a printer (PATCH customPapers) and named as a job's `paper`: the agent
receives its size and CUPS prints at it, checked in the cups-pdf output and the CUPS job."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import httpx

from tests.e2e.agent_cups.conftest import RunningAgent
from tests.e2e.agent_cups.cups_tools import CUPS_PDF_OUT, PDF_QUEUE, jobs_named, make_pdf, pdf_pages
from tests.e2e.agent_cups.test_cups_printing import submit, wait_terminal
from tests.e2e.client import eventually

# 100 x 150 mm, in the spec's tenths of a millimetre.
LABEL = {"name": "Shipping label 100x150", "width": 1000, "height": 1500}


def test_a_saved_custom_paper_prints_at_its_size(
    live: httpx.Client, cups_printers: dict, agent: RunningAgent, tmp_path: Path
) -> None:
    printer = cups_printers[PDF_QUEUE]
    assert printer["capabilities"]["supports_custom_paper_size"] is True
    saved = live.patch(f"/v1/printers/{printer['id']}", json={"customPapers": [LABEL]})
    assert saved.status_code == 200, saved.text
    before = set(CUPS_PDF_OUT.glob("*.pdf"))
    title = f"Label {uuid.uuid4().hex[:6]}"

    job = submit(live, printer, title, make_pdf(1), {"paper": LABEL["name"]})
    ended = wait_terminal(live, job["id"], agent)

    assert ended["state"] == "done", ended
    assert ended["stateMessage"] is None, ended  # nothing dropped: the paper was applied
    new = eventually(lambda: set(CUPS_PDF_OUT.glob("*.pdf")) - before, what="the cups-pdf output file")
    _, size = pdf_pages(new.pop())
    width, height = (float(side) for side in re.findall(r"[\d.]+", size)[:2])
    assert (round(width), round(height)) == (283, 425), size  # 100 x 150 mm in points
    # The CUPS job holds the size (hundredths of a millimetre in IPP).
    [cups_job] = jobs_named(PDF_QUEUE, title, tmp_path)
    assert cups_job["media-col"]["media-size"] == {"x-dimension": 10000, "y-dimension": 15000}
