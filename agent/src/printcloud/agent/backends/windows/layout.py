"""Where a rendered PDF page goes on the printable area: pure geometry for the Windows PDF path."""

from __future__ import annotations


def pages_to_print(selected: tuple[int, ...] | None, page_count: int) -> list[int]:
    """Zero-based indexes to render: all pages, or the selection without pages the PDF lacks."""
    if selected is None:
        return list(range(page_count))
    return [index for index in selected if 0 <= index < page_count]


def placement(image: tuple[int, int], printable: tuple[int, int], *, fit: bool) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) in device pixels for an image rendered at the device's resolution.

    Fitted, it is scaled to the printable area keeping its proportions and centred; otherwise it is
    printed at its own size from the top-left corner, and what falls outside is clipped by the DC.
    """
    width, height = image
    area_width, area_height = printable
    if not fit:
        return 0, 0, width, height
    scale = min(area_width / width, area_height / height)
    scaled_width, scaled_height = round(width * scale), round(height * scale)
    left, top = (area_width - scaled_width) // 2, (area_height - scaled_height) // 2
    return left, top, left + scaled_width, top + scaled_height
