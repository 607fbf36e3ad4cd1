"""Windows spooler backend: pure mapping modules over a thin pywin32 layer (`win32.py`)."""
