"""The vocabulary of printer-state-reasons every side shares."""

from __future__ import annotations

from printcloud.protocol.printer_reasons import (
    BLOCKING_REASONS,
    REASON_TEXT,
    blocking,
    described,
    named_with_text,
    normalised_reasons,
    without_severity,
)


def test_severity_suffixes_go_and_the_keyword_stays() -> None:
    assert [without_severity(k) for k in ("media-empty-error", "toner-low-warning", "offline-report")] == [
        "media-empty",
        "toner-low",
        "offline",
    ]
    assert without_severity("-error") == "-error", "a suffix alone is not a keyword with a severity"


def test_normalised_reasons_are_sorted_unique_keywords() -> None:
    given = ["paused", "media-empty-warning", "media-empty-error", "none", " MEDIA-JAM ", "com.acme-ink", "no spaces"]
    assert normalised_reasons(given) == ["com.acme-ink", "media-empty", "media-jam", "paused"]


def test_words_for_people_and_keywords_for_programs() -> None:
    assert described(["media-empty", "com.acme-ink"]) == "out of paper, com.acme-ink"
    named = named_with_text(["media-empty", "paused", "com.acme-ink"])
    assert named == "media-empty (out of paper), paused, com.acme-ink"


def test_every_blocking_reason_has_words() -> None:
    assert not BLOCKING_REASONS - set(REASON_TEXT)
    assert blocking(["toner-low", "media-jam", "paused"]) == ["media-jam", "paused"]
