"""Why a printer cannot print, or prints with a warning: IPP `printer-state-reasons` keywords as
PrintCloud reports them (agent/PROTOCOL.md, "Printer state"), and the words people read for them.

One vocabulary for every side: agents normalise what their spooler says with it, devices checks
what agents send with it, and jobs explains a waiting job with it.

Keywords are reported without their severity suffix (`-report`, `-warning`, `-error`): spoolers
disagree on it for one condition (cupsd copies a printer's `media-empty-error` as
`media-empty-warning`), so a client matching on `media-empty` would miss the others. Whether the
printer can print is what the printer's `state` says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SEVERITY_SUFFIXES = ("-report", "-warning", "-error")
NO_REASON = "none"
# A keyword as IPP defines them (RFC 8011 5.1.4), vendor ones included (`com.vendor-thing`).
_KEYWORD = re.compile(r"^[a-z][a-z0-9._-]*$")
MAX_REASON_CHARS = 100
MAX_STATE_REASONS = 32
MAX_STATE_DETAIL_CHARS = 1000

OFFLINE = "offline"
PAUSED = "paused"

# The conditions RFC 8011 and PWG 5100.9 name that people meet, as words for a sentence.
REASON_TEXT: dict[str, str] = {
    "media-empty": "out of paper",
    "media-needed": "paper needed",
    "media-low": "paper low",
    "media-jam": "a paper jam",
    "door-open": "a door is open",
    "cover-open": "a cover is open",
    "interlock-open": "an interlock is open",
    "input-tray-missing": "a paper tray is missing",
    "output-tray-missing": "the output tray is missing",
    "output-area-almost-full": "the output tray is almost full",
    "output-area-full": "the output tray is full",
    "toner-low": "toner low",
    "toner-empty": "out of toner",
    "marker-supply-low": "ink or toner low",
    "marker-supply-empty": "out of ink or toner",
    "marker-waste-almost-full": "the waste container is almost full",
    "marker-waste-full": "the waste container is full",
    "developer-low": "developer low",
    "developer-empty": "out of developer",
    "opc-near-eol": "the photoconductor is near the end of its life",
    "opc-life-over": "the photoconductor is worn out",
    "fuser-over-temp": "the fuser is too hot",
    "fuser-under-temp": "the fuser is too cold",
    "spool-area-full": "the printer's memory is full",
    "interpreter-resource-unavailable": "a font or other resource is missing",
    PAUSED: "paused",
    "moving-to-paused": "pausing",
    "stopping": "stopping",
    "stopped-partly": "partly stopped",
    "shutdown": "shut down",
    "deactivated": "deactivated",
    "hold-new-jobs": "holding new jobs",
    OFFLINE: "offline",
    "timed-out": "not responding",
    "connecting-to-device": "connecting to the printer",
    "other": "a problem it does not name",
}

# Conditions that keep a printer from printing until someone acts or it recovers; the rest
# (`toner-low`, `media-low`, ...) are warnings it prints through.
BLOCKING_REASONS = frozenset(
    {
        "media-empty",
        "media-needed",
        "media-jam",
        "door-open",
        "cover-open",
        "interlock-open",
        "input-tray-missing",
        "output-tray-missing",
        "output-area-full",
        "toner-empty",
        "marker-supply-empty",
        "marker-waste-full",
        "developer-empty",
        "opc-life-over",
        "spool-area-full",
        PAUSED,
        "moving-to-paused",
        "shutdown",
        "deactivated",
        "hold-new-jobs",
        OFFLINE,
        "timed-out",
    }
)


def without_severity(keyword: str) -> str:
    for suffix in SEVERITY_SUFFIXES:
        if keyword.endswith(suffix) and len(keyword) > len(suffix):
            return keyword.removesuffix(suffix)
    return keyword


def normalised_reasons(values: Iterable[str]) -> list[str]:
    """The reasons as PrintCloud reports them: lower-case keywords without severity, sorted, each
    once, at most `MAX_STATE_REASONS`; `none` and anything that is not a keyword are dropped."""
    found = set()
    for value in values:
        keyword = without_severity(value.strip().lower())
        if keyword != NO_REASON and len(keyword) <= MAX_REASON_CHARS and _KEYWORD.match(keyword):
            found.add(keyword)
    return sorted(found)[:MAX_STATE_REASONS]


def bounded_detail(text: str) -> str:
    return text.strip()[:MAX_STATE_DETAIL_CHARS]


def reason_text(reason: str) -> str:
    """The words for one reason; an unknown (vendor) keyword is shown as it is."""
    return REASON_TEXT.get(reason, reason)


def described(reasons: Iterable[str]) -> str:
    """`out of paper, toner low` for `["media-empty", "toner-low"]`."""
    return ", ".join(reason_text(reason) for reason in reasons)


def named_with_text(reasons: Iterable[str]) -> str:
    """`media-empty (out of paper), paused` : the keyword a client matches on, with its words."""
    parts = []
    for reason in reasons:
        text = reason_text(reason)
        parts.append(reason if text == reason else f"{reason} ({text})")
    return ", ".join(parts)


def blocking(reasons: Iterable[str]) -> list[str]:
    return [reason for reason in reasons if reason in BLOCKING_REASONS]
