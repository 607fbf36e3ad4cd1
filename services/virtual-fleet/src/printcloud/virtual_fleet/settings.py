"""Settings of the virtual-fleet process (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from printcloud.core.settings import InternalAuthSettings


class Settings(InternalAuthSettings):
    """It has no database: devices answers it over gRPC (`PRINTCLOUD_DEVICES_GRPC_TARGET`)."""

    service_name: str = "virtual-fleet"
    agent_gateway_url: str = "http://127.0.0.1:8081"
    fleet_poll_seconds: float = 2.0
    # The virtual printer's two steps; with delivery overhead a test job takes about 3 seconds.
    virtual_printing_after_seconds: float = 1.4
    virtual_done_after_seconds: float = 1.4
    # A file the virtual printers append each job they print to (`PrintLedger`); empty: none.
    # The fault suite sets it to count prints per job.
    virtual_print_ledger: str = ""
    # Where each virtual agent keeps its memory of jobs (one directory per computer), so a fleet
    # restarted mid-job ends those jobs instead of printing them again; empty: memory only.
    virtual_state_dir: str = ""
