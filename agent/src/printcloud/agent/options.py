"""The spec's print option rules as an agent applies them (rules 2-6).

The service has already rejected unknown options and filled defaults; what remains is deciding,
per operating system and per printer, which options the spooler will honour. Anything dropped is
named in a warning that ends up in the job's `stateMessage`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WINDOWS = "windows"

# Rules 4-6: options the Windows spooler path does not apply to PDF jobs.
_WINDOWS_IGNORED = {
    "dpi": "dpi is not applied on Windows",
    "media": "media is not applied on Windows",
    "collate": "collate is not applied on Windows",
    "nup": "nup is not applied on Windows",
}


@dataclass
class OptionDecision:
    """The options to hand to the spooler and a warning for each one dropped."""

    honoured: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def drop(self, name: str, reason: str) -> None:
        self.honoured.pop(name, None)
        self.warnings.append(f"{name} ignored: {reason}")


def decide_options(
    options: dict[str, Any], capabilities: dict[str, Any], os_family: str, *, raw: bool
) -> OptionDecision:
    if raw:
        return OptionDecision()  # rule 2: raw data already encodes its own settings
    decision = OptionDecision(honoured=dict(options))
    if os_family == WINDOWS:
        for name, reason in _WINDOWS_IGNORED.items():
            if name in options:
                decision.drop(name, reason)
        if options.get("rotate") in (180, "180"):
            decision.drop("rotate", "rotate 180 is not applied on Windows, the job prints unrotated")
    _drop_unsupported(decision, capabilities)
    return decision


def _drop_unsupported(decision: OptionDecision, capabilities: dict[str, Any]) -> None:
    """Rule 3: an option the printer cannot honour is dropped, never fatal."""
    options = dict(decision.honoured)
    if options.get("duplex") in ("long-edge", "short-edge") and not capabilities.get("duplex"):
        decision.drop("duplex", "the printer cannot print two-sided")
    if options.get("color") is True and not capabilities.get("color"):
        decision.drop("color", "the printer cannot print in colour; printed in grayscale")
    if options.get("collate") is True and not capabilities.get("collate"):
        decision.drop("collate", "the printer cannot collate")
    for name, listed in (("dpi", "dpis"), ("bin", "bins"), ("media", "medias")):
        if name in options and options[name] not in (capabilities.get(listed) or []):
            decision.drop(name, f"{options[name]!r} is not offered by the printer")
    if "nup" in options and options["nup"] != 1 and options["nup"] not in (capabilities.get("nup") or [1]):
        decision.drop("nup", f"{options['nup']} pages per sheet is not offered by the printer")
    max_copies = capabilities.get("copies") or 1
    if isinstance(options.get("copies"), int) and options["copies"] > max_copies:
        decision.drop("copies", f"the printer accepts at most {max_copies} copies")
    paper = options.get("paper")
    # A name outside `papers` is a custom paper saved on the service; only a printer that takes
    # custom sizes can use one.
    unknown_paper = paper is not None and paper not in (capabilities.get("papers") or {})
    if unknown_paper and not capabilities.get("supports_custom_paper_size"):
        decision.drop("paper", f"{paper!r} is not a paper size of the printer")


def warning_message(warnings: list[str]) -> str | None:
    return "; ".join(warnings) if warnings else None
