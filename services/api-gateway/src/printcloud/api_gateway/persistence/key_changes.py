"""Hears every change to keys and organizations (the triggers of migration 0004) and makes the
replica's `VerifiedKeys` forget what it verified; while it cannot hear them, nothing is served
from memory."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from printcloud.api_gateway.persistence.tables import SCHEMA
from printcloud.api_gateway.persistence.verified_keys import VerifiedKeys
from printcloud.core.db.url import connect

log = logging.getLogger(__name__)

CHANNEL = f"api_key_changes_{SCHEMA}"
RECONNECT_SECONDS = 1.0


async def listen_for_key_changes(database_url: str, verified: VerifiedKeys) -> None:
    """Runs until cancelled; reconnects after a lost connection."""
    while True:
        try:
            await _hear_changes(database_url, verified)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("key change listener lost its connection; keys are checked in the database until it is back",
                        exc_info=True)  # fmt: skip
        await asyncio.sleep(RECONNECT_SECONDS)


async def _hear_changes(database_url: str, verified: VerifiedKeys) -> None:
    """Trusts `verified` for as long as one connection listens."""
    connection = await connect(database_url)
    lost = asyncio.Event()

    def on_lost(*_: Any) -> None:
        verified.trust(False)
        lost.set()

    try:
        connection.add_termination_listener(on_lost)
        await connection.add_listener(CHANNEL, lambda *_: verified.forget_all())
        verified.trust(True)
        await lost.wait()
    finally:
        verified.trust(False)
        await connection.close()
