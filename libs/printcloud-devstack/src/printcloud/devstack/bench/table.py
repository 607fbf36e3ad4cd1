"""The one table `make bench` prints: each figure, what was measured, its target, and for a CPU
target the floor it is held to (`bench.floor`, measured in the same run), the ratio and whether
the target was met."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Row:
    figure: str
    measured: str
    target: str = ""
    floor: str = ""
    ratio: str = ""
    verdict: str = ""  # "met" or "missed"; empty for a figure without a target


def verdict(met: bool) -> str:
    return "met" if met else "missed"


def within(figure: str, measured: str, target: str, met: bool) -> Row:
    """A figure held to a fixed bound (a latency, a duration)."""
    return Row(figure, measured, target, verdict=verdict(met))


def cpu_within(figure: str, spent_ms: float, floor_ms: float, floor: str, times: float) -> Row:
    """CPU milliseconds a request held to at most `times` the floor named `floor`; no verdict while
    the floor is not measured (the bare figures left out of the run)."""
    target = f"≤ {times:g} x {floor}"
    measured = f"{spent_ms:.2f} ms CPU"
    if not floor_ms:
        return Row(figure, measured, target, "not measured")
    ratio = spent_ms / floor_ms
    return Row(figure, measured, target, f"{floor_ms:.2f} ms", f"{ratio:.1f} x", verdict(ratio <= times))


def render(rows: list[Row], notes: list[str]) -> str:
    names = [f.name for f in fields(Row)]
    header = Row(*names)
    widths = [max(len(getattr(r, name)) for r in [header, *rows]) for name in names]

    def line(row: Row) -> str:
        cells = [getattr(row, name) for name in names]
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "| " + " | ".join("-" * w for w in widths) + " |"
    return "\n".join([line(header), rule, *(line(r) for r in rows), "", *notes])
