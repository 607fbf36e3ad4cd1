"""Forgets wrong pairing codes once they are older than the window the limits count over."""

from __future__ import annotations

import logging

from printcloud.core.periodic import run_periodically
from printcloud.core.timeutil import utcnow
from printcloud.devices.use_cases.pairing import PairingCodes

log = logging.getLogger(__name__)


async def run_pairing_purge(pairing: PairingCodes, interval_seconds: float) -> None:
    async def purge() -> None:
        purged = await pairing.purge_failures(utcnow())
        if purged:
            log.info("old pairing failures forgotten", extra={"failures": purged})

    await run_periodically(purge, interval_seconds, "pairing failures purge")
