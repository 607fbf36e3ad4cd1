"""The CUPS backend's pure parts: IPP encoding, capability mapping, queue states, job attributes."""

from __future__ import annotations

import struct

import pytest

from printcloud.agent.backends.cups import ipp
from printcloud.agent.backends.cups.capabilities import merge_device_attributes, printer_capabilities, pwg_size
from printcloud.agent.backends.cups.discovery import printer_report
from printcloud.agent.backends.cups.job_attributes import job_template, page_ranges, raw_template
from printcloud.agent.backends.cups.job_tracking import progress
from printcloud.protocol.messages import CustomPaper


def size(x: ipp.Value, y: ipp.Value) -> ipp.Attributes:
    return {"x-dimension": [x], "y-dimension": [y]}


LABEL: ipp.Attributes = {
    "printer-name": ["zebra"],
    "printer-info": ["Zebra on the dock"],
    "printer-make-and-model": ["Zebra ZD420"],
    "printer-state": [3],
    "printer-state-reasons": ["none"],
    "printer-is-accepting-jobs": [True],
    "media-supported": ["oe_4x6-label_4x6in", "custom_min_1x1in", "custom_max_4.09x39in", "Odd"],
    "media-size-supported": [size(10160, 15240), size(10160, ipp.Range(2540, 99060))],
    "media-default": ["oe_4x6-label_4x6in"],
    "media-source-supported": ["main"],
    "media-type-supported": ["labels"],
    "printer-resolution-supported": [ipp.Resolution(80, 80, ipp.RESOLUTION_DPCM)],
    "sides-supported": ["one-sided"],
    "print-color-mode-supported": ["monochrome"],
    "copies-supported": [ipp.Range(1, 100)],
    "number-up-supported": [ipp.Range(1, 4)],
    "multiple-document-handling-supported": ["separate-documents-uncollated-copies"],
    "pages-per-minute": [0],
}


def test_an_ipp_request_round_trips_through_the_decoder() -> None:
    media_col = ipp.Collection((ipp.Attribute.of("media-source", ipp.KEYWORD, "main"),))
    encoded = ipp.encode_request(
        ipp.PRINT_JOB,
        7,
        [
            (ipp.OPERATION_GROUP, [ipp.Attribute.of("job-name", ipp.NAME, "Invoice")]),
            (
                ipp.JOB_GROUP,
                [
                    ipp.Attribute.of("page-ranges", ipp.RANGE, ipp.Range(1, 3), ipp.Range(5, 5)),
                    ipp.Attribute.of("printer-resolution", ipp.RESOLUTION, ipp.Resolution(600, 600)),
                    ipp.Attribute.of("media-col", ipp.BEGIN_COLLECTION, media_col),
                    ipp.Attribute.of("copies", ipp.INTEGER, 2),
                ],
            ),
        ],
    )
    # A request is decoded like a response: the operation id sits where the status would.
    decoded = ipp.decode_response(encoded)
    assert (decoded.status, decoded.request_id) == (ipp.PRINT_JOB, 7)
    operation = decoded.first(ipp.OPERATION_GROUP)
    assert operation["attributes-charset"] == ["utf-8"] and operation["job-name"] == ["Invoice"]
    assert decoded.first(ipp.JOB_GROUP) == {
        "page-ranges": [ipp.Range(1, 3), ipp.Range(5, 5)],
        "printer-resolution": [ipp.Resolution(600, 600)],
        "media-col": [{"media-source": ["main"]}],
        "copies": [2],
    }


def test_a_truncated_response_is_an_ipp_error() -> None:
    with pytest.raises(ipp.IppError):
        ipp.decode_response(struct.pack(">bbhi", 2, 0, 0, 1) + b"\x04\x21\x00")


def test_pwg_names_give_tenths_of_a_millimetre() -> None:
    assert pwg_size("iso_a4_210x297mm") == [2100, 2970]
    assert pwg_size("na_letter_8.5x11in") == [2159, 2794]
    assert pwg_size("Letter") == [None, None]


def test_capabilities_of_a_label_printer() -> None:
    caps = printer_capabilities(LABEL)
    assert caps["papers"] == {"oe_4x6-label_4x6in": [1016, 1524], "Odd": [None, None], "roll_101.6mm": [1016, None]}
    assert caps["extent"] == [[254, 254], [1039, 9906]]
    assert caps["supports_custom_paper_size"] is True
    assert caps["dpis"] == ["203x203"]  # 80 dots per centimetre
    assert (caps["duplex"], caps["color"], caps["collate"], caps["copies"]) == (False, False, False, 100)
    assert caps["nup"] == [1, 2, 4]
    assert caps["printrate"] is None


def test_the_device_of_a_driverless_queue_wins_for_what_it_states() -> None:
    merged = merge_device_attributes(LABEL, {"copies-supported": [ipp.Range(1, 999)], "number-up-supported": [1]})
    assert merged["copies-supported"] == [ipp.Range(1, 999)]
    assert merged["number-up-supported"] == [ipp.Range(1, 4)]  # CUPS lays out n-up itself


def test_printer_report_marks_the_default_queue() -> None:
    report = printer_report(LABEL, default_queue="zebra")
    assert (report.name, report.os_name, report.description, report.is_default) == (
        "zebra",
        "Zebra on the dock",
        "Zebra ZD420",
        True,
    )
    assert report.default_options == {"paper": "oe_4x6-label_4x6in"}


def attributes(template: list[ipp.Attribute]) -> dict[str, tuple[object, ...]]:
    return {attribute.name: attribute.values for attribute in template}


def members(value: ipp.SentValue) -> tuple[ipp.Attribute, ...]:
    assert isinstance(value, ipp.Collection)
    return value.members


def test_options_become_ipp_job_attributes() -> None:
    caps = {"papers": {"iso_a4_210x297mm": [2100, 2970]}}
    options = {
        "copies": 2,
        "duplex": "short-edge",
        "color": False,
        "dpi": "600x600",
        "collate": True,
        "fit_to_page": True,
        "rotate": 270,
        "nup": 4,
        "pages": "1-3,5",
        "paper": "iso_a4_210x297mm",
    }
    template = job_template(options, caps, qty=2)
    assert template.warnings == []
    assert attributes(template.attributes) == {
        "copies": (4,),
        "sides": ("two-sided-short-edge",),
        "print-color-mode": ("monochrome",),
        "printer-resolution": (ipp.Resolution(600, 600),),
        "multiple-document-handling": ("separate-documents-collated-copies",),
        "print-scaling": ("fit",),
        "orientation-requested": (5,),
        "number-up": (4,),
        "page-ranges": (ipp.Range(1, 3), ipp.Range(5, 5)),
        "media": ("iso_a4_210x297mm",),
    }


def test_a_custom_paper_with_a_tray_becomes_a_media_col() -> None:
    paper = CustomPaper(name="Receipt", width=800, height=2000)
    template = job_template({"paper": "Receipt", "bin": "main"}, {"papers": {}}, qty=1, custom_paper=paper)
    [media_col] = template.attributes
    assert media_col.name == "media-col"
    size_member, source = members(media_col.values[0])
    assert source == ipp.Attribute.of("media-source", ipp.KEYWORD, "main")
    assert members(size_member.values[0]) == (
        ipp.Attribute.of("x-dimension", ipp.INTEGER, 8000),
        ipp.Attribute.of("y-dimension", ipp.INTEGER, 20000),
    )


def test_an_unknown_custom_paper_is_dropped_with_a_warning() -> None:
    template = job_template({"paper": "Receipt"}, {"papers": {}}, qty=1)
    assert template.attributes == []
    assert template.warnings == ["paper ignored: the size of custom paper 'Receipt' was not sent to the agent"]


def test_raw_jobs_take_only_the_quantity() -> None:
    assert attributes(raw_template(qty=3).attributes) == {"copies": (3,)}
    assert raw_template(qty=1).attributes == []


def test_page_ranges_reject_nonsense() -> None:
    assert page_ranges("2") == [ipp.Range(2, 2)]
    for bad in ("0", "3-1", "a"):
        with pytest.raises(ValueError):
            page_ranges(bad)


def test_cups_job_states() -> None:
    assert progress({"job-state": [3]}, 1).started is False
    assert progress({"job-state": [5]}, 1).started is True
    assert progress({"job-state": [9]}, 1).outcome == "done"
    aborted = progress({"job-state": [8], "job-printer-state-message": ["Filter failed"]}, 4)
    assert (aborted.outcome, aborted.message) == ("error", "CUPS aborted job 4: Filter failed")
    cancelled = progress({"job-state": [7], "job-state-reasons": ["job-canceled-by-user"]}, 4)
    assert cancelled.outcome == "error" and "job-canceled-by-user" in (cancelled.message or "")
