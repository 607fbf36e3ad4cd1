"""The test-mode virtual computer of every organization and its four printers, as its agent reports them.

Here rather than in the agent because two sides share them: devices creates every organization's
virtual computer with these printers, and the agent's virtual backend (run by the virtual fleet)
reports exactly these, so its first report changes nothing.

Between them they exercise every option rule of the spec: an office printer with duplex, colour
and trays; a label printer taking raw ZPL on a roll of unbounded length; a printer that reports
itself as Windows (rule 6 applies to it); and a macOS photo printer offering n-up.
"""

from __future__ import annotations

from printcloud.protocol.messages import ComputerInfo, PrinterReport, capabilities

# The agent version the virtual computer reports; the virtual agent reports this computer as it is.
VIRTUAL_AGENT_VERSION = "0.1.0"

VIRTUAL_COMPUTER = ComputerInfo(
    hostname="virtual-computer",
    os="virtual",
    os_version="1",
    arch="virtual",
    agent_version=VIRTUAL_AGENT_VERSION,
)

# Printers report the OS family they emulate so that the per-OS option rules apply to them.
PRINTER_OS = {
    "virtual-office": "linux",
    "virtual-label": "linux",
    "virtual-windows": "windows",
    "virtual-photo": "macos",
}


def virtual_printers() -> list[PrinterReport]:
    return [
        PrinterReport(
            name="virtual-office",
            os_name="Virtual Office Printer",
            description="Virtual A4/Letter duplex colour office printer",
            is_default=True,
            capabilities=capabilities(
                papers={"A4": [2100, 2970], "Letter": [2159, 2794], "Legal": [2159, 3556], "A5": [1480, 2100]},
                bins=["Auto", "Tray 1", "Tray 2", "Manual Feed"],
                dpis=["300x300", "600x600", "1200x1200"],
                medias=["Plain", "Recycled", "Heavy"],
                duplex=True,
                color=True,
                collate=True,
                copies=999,
                nup=[1, 2, 4, 6, 9, 16],
                printrate={"rate": 30, "unit": "ppm"},
            ),
            default_options={"paper": "A4", "duplex": "one-sided", "color": True},
        ),
        PrinterReport(
            name="virtual-label",
            os_name="Virtual Label Printer",
            description="Virtual 4x6 thermal label printer (ZPL)",
            capabilities=capabilities(
                papers={"4x6": [1016, 1524], "4x6 Roll": [1016, None]},
                bins=["Roll"],
                dpis=["203x203"],
                medias=["Thermal Direct", "Thermal Transfer"],
                copies=100,
                nup=[1],
                extent=[[254, 254], [1168, 9999]],
                printrate={"rate": 6, "unit": "ips"},
                supports_custom_paper_size=True,
            ),
            default_options={"paper": "4x6"},
        ),
        PrinterReport(
            name="virtual-windows",
            os_name="Virtual Windows Printer",
            description="Virtual laser printer behind the Windows spooler",
            capabilities=capabilities(
                papers={"A4": [2100, 2970], "Letter": [2159, 2794], "Executive": [1842, 2667]},
                bins=["Automatically Select", "Tray 1", "Tray 2"],
                dpis=["600x600"],
                medias=["Plain"],
                duplex=True,
                color=False,
                collate=True,
                copies=99,
                nup=[1],
                printrate={"rate": 40, "unit": "ppm"},
            ),
            default_options={"paper": "Letter"},
        ),
        PrinterReport(
            name="virtual-photo",
            os_name="Virtual Photo Printer",
            description="Virtual macOS photo printer with n-up",
            capabilities=capabilities(
                papers={"4x6": [1016, 1524], "5x7": [1270, 1778], "A4": [2100, 2970], "Letter": [2159, 2794]},
                bins=["Photo Tray", "Main Tray"],
                dpis=["1200x1200", "4800x1200"],
                medias=["Glossy", "Matte", "Plain"],
                color=True,
                collate=False,
                copies=50,
                nup=[1, 2, 4],
                extent=[[890, 1270], [2159, 3556]],
                printrate={"rate": 4, "unit": "ppm"},
                supports_custom_paper_size=True,
            ),
            default_options={"paper": "4x6", "color": True},
        ),
    ]
