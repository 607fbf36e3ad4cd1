from printcloud.agent.options import decide_options
from printcloud.protocol.virtual_computer import virtual_printers

PRINTERS = {printer.name: printer.capabilities for printer in virtual_printers()}


def test_windows_ignores_dpi_media_collate_nup_and_rotate_180() -> None:
    options = {"dpi": "600x600", "media": "Plain", "collate": True, "nup": 1, "rotate": 180, "copies": 2}
    decision = decide_options(options, PRINTERS["virtual-windows"], "windows", raw=False)
    assert decision.honoured == {"copies": 2}
    dropped = sorted(warning.split(" ignored")[0] for warning in decision.warnings)
    assert dropped == ["collate", "dpi", "media", "nup", "rotate"]
    assert any("prints unrotated" in warning for warning in decision.warnings)


def test_windows_honours_rotate_90_and_its_own_options() -> None:
    options = {
        "rotate": 90,
        "duplex": "long-edge",
        "paper": "Letter",
        "bin": "Tray 1",
        "pages": "1-2",
        "fit_to_page": True,
    }
    decision = decide_options(options, PRINTERS["virtual-windows"], "windows", raw=False)
    assert decision.honoured == options
    assert decision.warnings == []


def test_linux_honours_dpi_media_collate_nup_the_printer_offers() -> None:
    options = {"dpi": "600x600", "media": "Recycled", "collate": True, "nup": 4, "rotate": 180, "duplex": "short-edge"}
    decision = decide_options(options, PRINTERS["virtual-office"], "linux", raw=False)
    assert decision.honoured == options
    assert decision.warnings == []


def test_linux_drops_what_the_printer_cannot_do() -> None:
    options = {"duplex": "long-edge", "color": True, "dpi": "600x600", "copies": 101, "paper": "4x6"}
    decision = decide_options(options, PRINTERS["virtual-label"], "linux", raw=False)
    assert decision.honoured == {"paper": "4x6"}
    assert "duplex ignored: the printer cannot print two-sided" in decision.warnings
    assert any(w.startswith("color ignored") for w in decision.warnings)
    assert any(w.startswith("dpi ignored") for w in decision.warnings)
    assert any(w.startswith("copies ignored") for w in decision.warnings)


def test_macos_drops_duplex_collate_and_unoffered_nup() -> None:
    options = {"duplex": "long-edge", "collate": True, "nup": 16, "color": False}
    decision = decide_options(options, PRINTERS["virtual-photo"], "macos", raw=False)
    assert decision.honoured == {"color": False}
    assert len(decision.warnings) == 3


def test_unknown_paper_is_dropped_only_without_custom_sizes() -> None:
    office = decide_options({"paper": "Envelope"}, PRINTERS["virtual-office"], "linux", raw=False)
    label = decide_options({"paper": "My label"}, PRINTERS["virtual-label"], "linux", raw=False)
    assert office.honoured == {} and office.warnings
    assert label.honoured == {"paper": "My label"} and not label.warnings


def test_raw_jobs_ignore_options_silently() -> None:
    decision = decide_options({"duplex": "long-edge", "dpi": "1"}, PRINTERS["virtual-label"], "linux", raw=True)
    assert decision.honoured == {}
    assert decision.warnings == []
