"""The Win32 constants the backend maps (wingdi.h, winspool.h), so the pure modules need no pywin32."""

from __future__ import annotations

# DEVMODE values.
DMDUP_SIMPLEX = 1
DMDUP_VERTICAL = 2  # long edge
DMDUP_HORIZONTAL = 3  # short edge
DMCOLOR_MONOCHROME = 1
DMCOLOR_COLOR = 2
DMPAPER_USER = 256

# DC_PRINTRATEUNIT answers.
PRINT_RATE_UNITS = {1: "ppm", 2: "cps", 3: "lpm", 4: "ipm"}

# PRINTER_STATUS_* bits that mean the printer cannot print now, and what to tell the user.
PRINTER_STATUS_PAUSED = 0x00000001
PRINTER_PROBLEMS = {
    PRINTER_STATUS_PAUSED: "paused",
    0x00000002: "in an error state",
    0x00000004: "being deleted",
    0x00000008: "paper jam",
    0x00000010: "out of paper",
    0x00000080: "offline",
    0x00000400: "door open",
    0x00001000: "not available",
    0x00400000: "needs user intervention",
    0x00800000: "server unknown",
}
PRINTER_ATTRIBUTE_WORK_OFFLINE = 0x00000400

# JOB_STATUS_* bits.
JOB_STATUS_PAUSED = 0x0001
JOB_STATUS_ERROR = 0x0002
JOB_STATUS_DELETING = 0x0004
JOB_STATUS_PRINTING = 0x0010
JOB_STATUS_OFFLINE = 0x0020
JOB_STATUS_PAPEROUT = 0x0040
JOB_STATUS_PRINTED = 0x0080
JOB_STATUS_DELETED = 0x0100
JOB_STATUS_COMPLETE = 0x1000
