"""Independent views of the CUPS side, for assertions: ipptool and pdfinfo, not the agent's code."""

from __future__ import annotations

import plistlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

# Made by scripts/ci-cups.sh.
PDF_QUEUE = "printcloud-pdf"
IPP_QUEUE = "printcloud-ipp"
IPPEVE_URI = "ipp://localhost:8631/ipp/print"
CUPS_PDF_OUT = Path("/var/spool/cups-pdf/printcloud")
IPPEVE_SPOOL = Path("/var/spool/printcloud-ippeve")
IPPEVE_HOLD = IPPEVE_SPOOL / "hold"

SETUP_HINT = (
    "the CUPS test printers are not set up: run `sudo scripts/ci-cups.sh` first (it installs Debian's cups, "
    "cups-ipp-utils, printer-driver-cups-pdf and poppler-utils, starts cupsd and an ippeveprinter, and adds "
    f"the queues {PDF_QUEUE} and {IPP_QUEUE}); see README.md, 'Agent and CUPS'"
)

_GET_JOBS = """{
  OPERATION Get-Jobs
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR naturalLanguage attributes-natural-language en
  ATTR uri printer-uri $uri
  ATTR name requesting-user-name root
  ATTR keyword which-jobs all
  ATTR boolean my-jobs false
  ATTR keyword requested-attributes job-id,job-name,job-state,copies,sides,media,media-col,page-ranges
}
"""
_GET_PRINTER = """{
  OPERATION Get-Printer-Attributes
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR naturalLanguage attributes-natural-language en
  ATTR uri printer-uri $uri
  ATTR keyword requested-attributes all,media-col-database
}
"""


def missing_setup() -> str | None:
    """Why the CUPS tests cannot run here, or None."""
    for tool in ("lpstat", "ipptool", "pdfinfo", "cupsenable", "cupsdisable"):
        if shutil.which(tool) is None:
            return f"{tool} not found; {SETUP_HINT}"
    running = subprocess.run(["lpstat", "-r"], capture_output=True, text=True, check=False)
    if "is running" not in running.stdout:
        return f"cupsd is not running; {SETUP_HINT}"
    for queue in (PDF_QUEUE, IPP_QUEUE):
        if subprocess.run(["lpstat", "-p", queue], capture_output=True, check=False).returncode != 0:
            return f"queue {queue} is missing; {SETUP_HINT}"
    try:
        printer_attributes(IPPEVE_URI)
    except AssertionError:
        return f"ippeveprinter does not answer on {IPPEVE_URI}; {SETUP_HINT}"
    return None


def _ipptool(uri: str, test: str, tmp: Path) -> list[dict[str, Any]]:
    path = tmp / "request.test"
    path.write_text(test)
    result = subprocess.run(["ipptool", "-X", "-T", "10", uri, str(path)], capture_output=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr.decode()
    groups = plistlib.loads(result.stdout)["Tests"][0]["ResponseAttributes"]
    return list(groups)


def listed(value: Any) -> list[Any]:
    """ipptool's plist gives one value bare and several as a list."""
    return value if isinstance(value, list) else [value]


def printer_attributes(uri: str, tmp: Path | None = None) -> dict[str, Any]:
    folder = tmp or Path("/tmp")
    groups = _ipptool(uri, _GET_PRINTER, folder)
    return next(g for g in groups if "printer-name" in g)


def cups_jobs(queue: str, tmp: Path) -> list[dict[str, Any]]:
    groups = _ipptool(f"ipp://localhost/printers/{queue}", _GET_JOBS, tmp)
    return [g for g in groups if "job-id" in g]


def jobs_named(queue: str, title: str, tmp: Path) -> list[dict[str, Any]]:
    return [job for job in cups_jobs(queue, tmp) if job.get("job-name") == title]


def pdf_pages(path: Path) -> tuple[int, str]:
    """(page count, page size line) as poppler's pdfinfo reads them."""
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    pages = re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE)
    size = re.search(r"^Page size:\s+(.+)$", info, re.MULTILINE)
    assert pages and size, info
    return int(pages.group(1)), size.group(1)


def make_pdf(pages: int) -> bytes:
    """A valid PDF (with a correct xref table) of `pages` A4 pages, each showing its number."""
    objects = [b"<</Type/Catalog/Pages 2 0 R>>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects.append(f"<</Type/Pages/Kids[{kids}]/Count {pages}>>".encode())
    font = 3 + 2 * pages
    for i in range(pages):
        content = f"BT /F1 48 Tf 100 700 Td (Page {i + 1}) Tj ET".encode()
        objects.append(
            f"<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Contents {4 + 2 * i} 0 R"
            f"/Resources<</Font<</F1 {font} 0 R>>>>>>".encode()
        )
        objects.append(b"<</Length %d>>stream\n%s\nendstream" % (len(content), content))
    objects.append(b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
