"""Prints a PDF on a printer and waits for the job's end.

    PRINTCLOUD_BASE_URL=https://print.example.com PRINTCLOUD_API_KEY=svc_test_... \
        python print_and_wait.py [PRINTER] [FILE.pdf]

PRINTER is a printer's name or id (default: `virtual-office`, a test-mode virtual printer); FILE
defaults to a one-page PDF made here. Prints the final state; exits 0 when the job is `done`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from printcloud_sdk import PrintCloud, models

ONE_PAGE_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def main() -> int:
    printer = sys.argv[1] if len(sys.argv) > 1 else "virtual-office"
    with tempfile.TemporaryDirectory() as folder:
        document = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(folder) / "hello.pdf"
        if len(sys.argv) <= 2:
            document.write_bytes(ONE_PAGE_PDF)
        with PrintCloud() as client:  # PRINTCLOUD_BASE_URL and PRINTCLOUD_API_KEY
            job = client.print_jobs.print_file(document, printer=printer, options={"copies": 1})
            print(f"job {job.id} queued on {printer}")
            final = client.print_jobs.wait(job.id, timeout=120)
    print(f"job {final.id}: {final.state}" + (f" ({final.state_message})" if final.state_message else ""))
    return 0 if final.state == models.JobState.DONE else 1


if __name__ == "__main__":
    sys.exit(main())
