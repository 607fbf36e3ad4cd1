"""CUPS backend (Linux and macOS): IPP to the local cupsd, no compiled dependency."""
