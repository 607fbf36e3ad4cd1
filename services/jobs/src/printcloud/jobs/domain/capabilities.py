"""Spec "Print options" rule 3: an option the printer cannot honour is dropped with a warning.

Judged against the printer's `capabilities` (and `customPapers` for `paper`), which the agent
read from the driver. The per-OS rules (4 to 6) need the operating system's own behaviour and
are applied by the agent's backend; its warnings come back in the agent's final message.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from printcloud.jobs.domain.job import CustomPaper


class CustomPaperSize(Protocol):
    name: str
    width: int
    height: int


# Says why the printer cannot honour a value, or None when it can.
Judge = Callable[[object, Mapping[str, object], Collection[str]], str | None]


@dataclass(frozen=True)
class Fitted:
    options: dict[str, Any]
    warnings: list[str]


def _listed(field: str, what: str) -> Judge:
    def judge(value: object, capabilities: Mapping[str, object], _: Collection[str]) -> str | None:
        offered = capabilities.get(field)
        if isinstance(offered, list) and value not in offered:
            return f"the printer offers no {what} {value!r}"
        return None

    return judge


def _feature(field: str, wanted: Callable[[object], bool], what: str) -> Judge:
    def judge(value: object, capabilities: Mapping[str, object], _: Collection[str]) -> str | None:
        if capabilities.get(field) is False and wanted(value):
            return f"the printer cannot {what}"
        return None

    return judge


def _paper(value: object, capabilities: Mapping[str, object], custom_papers: Collection[str]) -> str | None:
    papers = capabilities.get("papers")
    if isinstance(papers, dict) and value not in papers and value not in custom_papers:
        return f"the printer has no paper named {value!r}"
    return None


_JUDGES: dict[str, Judge] = {
    "paper": _paper,
    "duplex": _feature("duplex", lambda value: value != "one-sided", "print two-sided"),
    "color": _feature("color", lambda value: value is True, "print in colour"),
    "collate": _feature("collate", lambda value: value is True, "collate"),
    "dpi": _listed("dpis", "resolution"),
    "bin": _listed("bins", "bin"),
    "media": _listed("medias", "media"),
    "nup": _listed("nup", "pages-per-sheet value"),
}


def custom_paper_named(
    options: Mapping[str, Any], capabilities: object, custom_papers: Iterable[CustomPaperSize]
) -> CustomPaper | None:
    """The saved custom paper the `paper` option names, whose size goes to the agent with the job.
    A driver's paper of the same name wins: the driver knows its own sizes."""
    paper = options.get("paper")
    papers = capabilities.get("papers") if isinstance(capabilities, dict) else None
    if paper is None or (isinstance(papers, dict) and paper in papers):
        return None
    for custom in custom_papers:
        if custom.name == paper:
            return {"name": custom.name, "width": custom.width, "height": custom.height}
    return None


def fit_to_printer(options: Mapping[str, Any], capabilities: object, custom_papers: Collection[str]) -> Fitted:
    """The options the printer can honour, and a warning for each one dropped or capped.

    A capability the agent did not report is not held against the job: only what the driver says
    it cannot do is dropped.
    """
    if not isinstance(capabilities, dict):
        return Fitted(dict(options), [])
    fitted: dict[str, Any] = {}
    warnings: list[str] = []
    for name, value in options.items():
        judge = _JUDGES.get(name)
        reason = judge(value, capabilities, custom_papers) if judge else None
        if reason is not None:
            warnings.append(f"{name} ignored: {reason}")
            continue
        fitted[name] = value
    most = capabilities.get("copies")
    copies = fitted.get("copies")
    if isinstance(most, int) and most >= 1 and isinstance(copies, int) and copies > most:
        fitted["copies"] = most
        warnings.append(f"copies reduced to {most}: the printer accepts at most {most}")
    return Fitted(fitted, warnings)


def join_messages(*messages: str | None) -> str | None:
    """One `stateMessage` from option warnings and later reasons, in the order they arose."""
    parts = [message for message in messages if message]
    return "; ".join(parts) if parts else None
