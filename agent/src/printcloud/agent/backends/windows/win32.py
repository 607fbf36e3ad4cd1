"""The thin Win32 layer: `Spooler` implemented with pywin32, and pypdfium2 to render PDF pages.

Windows only; the rest of the backend reaches Win32 through this class alone. Not run by the test
suite (see agent/INSTALL.md, "What is untested on real Windows").
"""

from __future__ import annotations

from typing import Any

from printcloud.agent.backends.windows.layout import pages_to_print, placement
from printcloud.agent.backends.windows.spooler import DeviceCaps, JobInfo, PdfSettings, PrinterInfo

# winspool.h / wingdi.h values pywin32 does not all export.
PRINTER_ENUM_LOCAL = 0x2
PRINTER_ENUM_CONNECTIONS = 0x4
JOB_CONTROL_DELETE = 5
ERROR_INVALID_PARAMETER = 87
DC = {
    "papers": 2,
    "papersize": 3,
    "minextent": 4,
    "maxextent": 5,
    "bins": 6,
    "duplex": 7,
    "binnames": 12,
    "enumresolutions": 13,
    "papernames": 16,
    "copies": 18,
    "collate": 22,
    "printrate": 26,
    "printrateunit": 27,
    "colordevice": 32,
    "nup": 33,
    "mediatypenames": 34,
}
DM_IN_BUFFER = 8
DM_OUT_BUFFER = 2
DM_ORIENTATION, DM_PAPERSIZE, DM_PAPERLENGTH, DM_PAPERWIDTH = 0x1, 0x2, 0x4, 0x8
DM_COPIES, DM_DEFAULTSOURCE, DM_COLOR, DM_DUPLEX = 0x100, 0x200, 0x800, 0x1000
HORZRES, VERTRES, LOGPIXELSX, LOGPIXELSY = 8, 10, 88, 90


def _point(value: Any) -> tuple[int, int]:
    """pywin32 answers a POINT as a dict {'x', 'y'}; older builds as a tuple."""
    if isinstance(value, dict):
        return int(value["x"]), int(value["y"])
    return int(value[0]), int(value[1])


class Pywin32Spooler:
    def __init__(self) -> None:
        import win32print  # pywin32 exists on Windows only

        self._win32print = win32print

    def printers(self) -> list[PrinterInfo]:
        wp = self._win32print
        try:
            default = wp.GetDefaultPrinter()
        except Exception:  # noqa: BLE001 - no default printer raises a pywintypes.error
            default = None
        return [
            PrinterInfo(
                name=info["pPrinterName"],
                port=info["pPortName"] or "",
                driver=info["pDriverName"] or "",
                comment=info["pComment"] or "",
                status=int(info["Status"]),
                attributes=int(info["Attributes"]),
                is_default=info["pPrinterName"] == default,
            )
            for info in wp.EnumPrinters(PRINTER_ENUM_LOCAL | PRINTER_ENUM_CONNECTIONS, None, 2)
        ]

    def capabilities(self, printer: PrinterInfo) -> DeviceCaps:
        def ask(name: str) -> Any:
            try:
                return self._win32print.DeviceCapabilities(printer.name, printer.port, DC[name])
            except Exception:  # noqa: BLE001 - a driver without the capability answers with an error
                return None

        def listed(name: str) -> tuple[Any, ...]:
            value = ask(name)
            return tuple(value) if isinstance(value, list | tuple) else ()

        def number(name: str) -> int:
            value = ask(name)
            return int(value) if isinstance(value, int) and value > 0 else 0

        min_extent, max_extent = ask("minextent"), ask("maxextent")
        return DeviceCaps(
            paper_ids=tuple(int(v) for v in listed("papers")),
            paper_names=tuple(str(v).strip("\0 ") for v in listed("papernames")),
            paper_sizes=tuple(_point(v) for v in listed("papersize")),
            bin_ids=tuple(int(v) for v in listed("bins")),
            bin_names=tuple(str(v).strip("\0 ") for v in listed("binnames")),
            resolutions=tuple(_point(v) for v in listed("enumresolutions")),
            media_type_names=tuple(str(v).strip("\0 ") for v in listed("mediatypenames")),
            duplex=number("duplex") == 1,
            color=number("colordevice") == 1,
            collate=number("collate") == 1,
            copies=number("copies") or 1,
            nup=tuple(int(v) for v in listed("nup")),
            min_extent=_point(min_extent) if min_extent else None,
            max_extent=_point(max_extent) if max_extent else None,
            print_rate=number("printrate"),
            print_rate_unit=number("printrateunit"),
        )

    def print_raw(self, printer: str, document_name: str, data: bytes) -> int:
        wp = self._win32print
        handle = wp.OpenPrinter(printer)
        try:
            job_id = wp.StartDocPrinter(handle, 1, (document_name, None, "RAW"))
            try:
                wp.StartPagePrinter(handle)
                wp.WritePrinter(handle, data)
                wp.EndPagePrinter(handle)
            finally:
                wp.EndDocPrinter(handle)
        finally:
            wp.ClosePrinter(handle)
        return int(job_id)

    def _devmode(self, printer: str, settings: PdfSettings) -> Any:
        wp = self._win32print
        handle = wp.OpenPrinter(printer)
        try:
            devmode = wp.GetPrinter(handle, 2)["pDevMode"]
            devmode.Copies = settings.copies
            devmode.Fields |= DM_COPIES
            if settings.duplex is not None:
                devmode.Duplex, devmode.Fields = settings.duplex, devmode.Fields | DM_DUPLEX
            if settings.color is not None:
                devmode.Color, devmode.Fields = settings.color, devmode.Fields | DM_COLOR
            if settings.paper_size is not None:
                devmode.PaperSize, devmode.Fields = settings.paper_size, devmode.Fields | DM_PAPERSIZE
            if settings.paper_dimensions is not None:
                devmode.PaperWidth, devmode.PaperLength = settings.paper_dimensions
                devmode.Fields |= DM_PAPERWIDTH | DM_PAPERLENGTH
            if settings.default_source is not None:
                devmode.DefaultSource, devmode.Fields = settings.default_source, devmode.Fields | DM_DEFAULTSOURCE
            # The driver merges and validates the fields set above.
            wp.DocumentProperties(0, handle, printer, devmode, devmode, DM_IN_BUFFER | DM_OUT_BUFFER)
            return devmode
        finally:
            wp.ClosePrinter(handle)

    def print_pdf(self, printer: str, document_name: str, data: bytes, settings: PdfSettings) -> int:
        import pypdfium2  # Windows-only dependencies, imported on use
        import win32gui
        import win32ui
        from PIL import ImageWin

        dc = win32ui.CreateDCFromHandle(win32gui.CreateDC("WINSPOOL", printer, self._devmode(printer, settings)))
        pdf = pypdfium2.PdfDocument(data)
        try:
            printable = (dc.GetDeviceCaps(HORZRES), dc.GetDeviceCaps(VERTRES))
            scale = dc.GetDeviceCaps(LOGPIXELSX) / 72  # PDF points to device pixels
            job_id = dc.StartDoc(document_name)
            for index in pages_to_print(settings.pages, len(pdf)):
                bitmap = pdf[index].render(scale=scale, rotation=settings.rotate).to_pil()
                dc.StartPage()
                ImageWin.Dib(bitmap).draw(
                    dc.GetHandleOutput(), placement(bitmap.size, printable, fit=settings.fit_to_page)
                )
                dc.EndPage()
            dc.EndDoc()
        finally:
            pdf.close()
            dc.DeleteDC()
        return int(job_id)

    def job(self, printer: str, job_id: int) -> JobInfo | None:
        wp = self._win32print
        handle = wp.OpenPrinter(printer)
        try:
            info = wp.GetJob(handle, job_id, 1)
        except Exception as exc:
            if getattr(exc, "winerror", None) == ERROR_INVALID_PARAMETER:
                return None
            raise
        finally:
            wp.ClosePrinter(handle)
        return JobInfo(status=int(info["Status"]), status_text=info.get("pStatus") or "")

    def cancel(self, printer: str, job_id: int) -> None:
        wp = self._win32print
        handle = wp.OpenPrinter(printer)
        try:
            wp.SetJob(handle, job_id, 0, None, JOB_CONTROL_DELETE)
        finally:
            wp.ClosePrinter(handle)
