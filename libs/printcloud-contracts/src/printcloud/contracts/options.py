"""Print options and custom papers: what a job asks of a printer (spec, "Print options").

The services check options with `printcloud.contracts.option_checks`, which takes its patterns from
here, so that the document and the server accept exactly the same values.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field, StrictBool, StrictInt, StrictStr
from pydantic.json_schema import SkipJsonSchema

from printcloud.contracts.base import Contract, integral
from printcloud.contracts.enums import Duplex, Rotation
from printcloud.contracts.text import NON_BLANK

MAX_COPIES = 999
MAX_NUP = 16
MAX_CUSTOM_PAPERS = 50
MAX_PAPER_NAME_LENGTH = 255
# Ten metres: beyond any printable medium, low enough to catch a value in the wrong unit.
MAX_PAPER_SIZE = 100_000

# Page numbers from 1 and ranges, separated by commas, spaces and tabs allowed around each.
# ASCII digits and blanks written out: Python's `\d` and `\s` take more than ECMA-262's.
_PAGE = "0*[1-9][0-9]*"
_PAGE_RANGE = f"[ \\t]*{_PAGE}(?:-[0-9]+)?[ \\t]*"
PAGES = f"^{_PAGE_RANGE}(?:,{_PAGE_RANGE})*$"
_PAGES = re.compile(PAGES)
_RANGE = re.compile("([0-9]+)-([0-9]+)")


def pages_problem(pages: str) -> str | None:
    """Why `pages` is refused, or None. One rule is beyond a pattern: no range ends before it starts."""
    if _PAGES.fullmatch(pages) is None:
        return 'page numbers and ranges separated by commas, such as "1-3,5"'
    if any(int(last) < int(first) for first, last in _RANGE.findall(pages)):
        return "ranges that do not end before they start"
    return None


Name = Annotated[StrictStr, Field(pattern=NON_BLANK)]
Copies = Annotated[StrictInt, Field(ge=1, le=MAX_COPIES), BeforeValidator(integral)]
PagesPerSheet = Annotated[StrictInt, Field(ge=1, le=MAX_NUP), BeforeValidator(integral)]
PaperSize = Annotated[StrictInt, Field(ge=1, le=MAX_PAPER_SIZE), BeforeValidator(integral)]
# An option is given or left out, never null.
Unset = SkipJsonSchema[None]


class PrintOptions(Contract):
    """Every option is optional; an omitted one is filled from the printer's `defaultOptions`. An
    option the printer cannot honour is dropped with a warning in the job's `stateMessage`."""

    copies: Copies | Unset = Field(None, description="Copies of each page range; at most the printer's `copies`")
    paper: Name | Unset = Field(None, description="A name from the printer's `papers` or `customPapers`")
    duplex: Duplex | Unset = None
    color: StrictBool | Unset = Field(None, description="`false` prints in grayscale")
    dpi: Name | Unset = Field(None, description="From the printer's `dpis`, such as `600x600`")
    bin: Name | Unset = Field(None, description="A paper tray or output bin from the printer's `bins`")
    media: Name | Unset = Field(None, description="A media type from the printer's `medias`")
    collate: StrictBool | Unset = Field(None, description="Keep multiple copies in page order")
    fit_to_page: StrictBool | Unset = Field(None, description="Scale the page to the paper")
    rotate: Rotation | Unset = None
    pages: Annotated[StrictStr, Field(pattern=PAGES)] | Unset = Field(
        None, description="Page numbers and ranges, such as `1-3,5`; no range may end before it starts"
    )
    nup: PagesPerSheet | Unset = Field(None, description="Pages per sheet, from the printer's `nup`")


class CustomPaper(Contract):
    """A paper size of the user's, usable as the `paper` option once saved. Sizes in tenths of a
    millimetre."""

    name: Annotated[StrictStr, Field(max_length=MAX_PAPER_NAME_LENGTH, pattern=NON_BLANK)]
    width: PaperSize
    height: PaperSize
