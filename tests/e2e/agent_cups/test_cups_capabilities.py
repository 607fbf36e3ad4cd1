"""The capabilities the agent reports for the IPP Everywhere queue are what ippeveprinter itself
advertises, attribute by attribute (read here with ipptool, independently of the agent)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.agent_cups.cups_tools import IPP_QUEUE, IPPEVE_URI, listed, printer_attributes


def test_reported_capabilities_match_what_ippeveprinter_advertises(cups_printers: dict, tmp_path: Path) -> None:
    device = printer_attributes(IPPEVE_URI, tmp_path)
    queue = printer_attributes(f"ipp://localhost/printers/{IPP_QUEUE}", tmp_path)
    reported = cups_printers[IPP_QUEUE]["capabilities"]

    sizes = {entry["media-size-name"]: entry["media-size"] for entry in listed(device["media-col-database"])}
    expected_papers = {
        name: [round(sizes[name]["x-dimension"] / 10), round(sizes[name]["y-dimension"] / 10)]
        for name in listed(device["media-supported"])
    }
    assert reported["papers"] == expected_papers
    assert reported["bins"] == listed(device["media-source-supported"])
    assert reported["dpis"] == [f"{r['xres']}x{r['yres']}" for r in listed(device["printer-resolution-supported"])]
    assert reported["medias"] == listed(device["media-type-supported"])
    assert reported["duplex"] is any(s.startswith("two-sided") for s in listed(device["sides-supported"]))
    assert reported["duplex"] is True  # started with -2
    assert reported["color"] is ("color" in listed(device["print-color-mode-supported"]))
    assert reported["collate"] is (
        "separate-documents-collated-copies" in listed(device["multiple-document-handling-supported"])
    )
    assert reported["copies"] == device["copies-supported"]["upper"]
    assert reported["printrate"] == {"rate": device["pages-per-minute"], "unit": "ppm"}
    # ippeveprinter states no custom size range, and leaves n-up to CUPS, whose filters lay it out.
    assert "number-up-supported" not in device
    assert reported["nup"] == listed(queue["number-up-supported"])
    assert reported["extent"] is None
    assert reported["supports_custom_paper_size"] is False
    assert set(reported) == {
        "papers",
        "bins",
        "dpis",
        "medias",
        "duplex",
        "color",
        "collate",
        "copies",
        "nup",
        "extent",
        "printrate",
        "supports_custom_paper_size",
    }
