"""Spooler backends: CUPS (Linux, macOS), the Windows spooler, and the virtual test printers."""
