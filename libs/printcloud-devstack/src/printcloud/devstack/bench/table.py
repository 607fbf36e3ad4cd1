"""The one table `make bench` prints: each figure, its target, what was measured, and the measured
figure against the bare part it is made of, measured in the same run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    figure: str
    target: str
    measured: str
    # Measured throughput over the baseline's, e.g. "0.12 of bare FastAPI"; empty when none applies.
    ratio: str = ""


def ratio(measured: float, baseline: float, name: str) -> str:
    return f"{measured / baseline:.2f} x {name}" if baseline else ""


def render(rows: list[Row], notes: list[str]) -> str:
    header = Row("figure", "target", "measured", "ratio to baseline")
    widths = [max(len(getattr(r, f)) for r in [header, *rows]) for f in ("figure", "target", "measured", "ratio")]

    def line(row: Row) -> str:
        cells = (row.figure, row.target, row.measured, row.ratio)
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "| " + " | ".join("-" * w for w in widths) + " |"
    return "\n".join([line(header), rule, *(line(r) for r in rows), "", *notes])
