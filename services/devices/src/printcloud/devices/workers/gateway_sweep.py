"""Marks offline the computers of agent-gateway replicas that stopped heartbeating.

A replica that dies cannot report its agents' disconnects. Replicas heartbeat every
`PRINTCLOUD_INSTANCE_HEARTBEAT_SECONDS` (agent-gateway setting); this sweep runs every
`gateway_sweep_seconds` and takes offline the computers of a replica silent for
`gateway_instance_timeout_seconds`, so they go offline at most timeout + sweep interval after
the replica's last heartbeat (35 s with the defaults).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from printcloud.core.periodic import run_periodically
from printcloud.core.timeutil import utcnow
from printcloud.devices.use_cases.gateway_instances import GatewayInstances

log = logging.getLogger(__name__)


async def run_gateway_sweep(gateways: GatewayInstances, timeout_seconds: float, interval_seconds: float) -> None:
    timeout = timedelta(seconds=timeout_seconds)

    async def sweep() -> None:
        swept = await gateways.sweep_silent_gateways(utcnow(), timeout)
        if swept:
            log.info("computers of silent agent-gateway replicas marked offline", extra={"computers": swept})

    await run_periodically(sweep, interval_seconds, "agent-gateway sweep")
