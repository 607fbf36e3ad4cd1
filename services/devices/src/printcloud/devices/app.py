"""Wiring of the devices process: migrations, database, outbox relay, consumer, gateway sweep and
gRPC server."""

from __future__ import annotations

import logging
from datetime import timedelta

from printcloud.core.db.migrations import migrate
from printcloud.core.kafka.topics import DOMAIN_EVENTS
from printcloud.core.process.service_process import ServiceProcess
from printcloud.devices.domain.pairing_attempts import AttemptLimits
from printcloud.devices.domain.pairing_codes import pairing_key
from printcloud.devices.persistence.tables import SCHEMA, outbox, processed_messages
from printcloud.devices.settings import Settings
from printcloud.devices.transport.organization_events import OrganizationEventsHandler
from printcloud.devices.transport.servicer import DevicesServicer
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.devices.use_cases.organizations import CONSUMER_GROUP
from printcloud.devices.use_cases.pairing import PairingCodes
from printcloud.devices.workers.gateway_sweep import run_gateway_sweep
from printcloud.devices.workers.pairing_purge import run_pairing_purge
from printcloud.v1 import devices_pb2_grpc

log = logging.getLogger(__name__)


async def migrate_schema(database_url: str) -> None:
    await migrate(database_url, SCHEMA, "printcloud.core.kafka.sql")
    await migrate(database_url, SCHEMA, "printcloud.devices.persistence.migrations")


async def main() -> None:
    settings = Settings.load()
    process = await ServiceProcess.start(settings, migrate_schema)
    devices = DeviceUseCases.on(process.db)
    pairing = PairingCodes(
        process.db,
        # Bound to the internal secret: rotating that secret ends the pairing codes made before.
        pairing_key(settings.internal_auth_secret.get_secret_value()),
        AttemptLimits(
            settings.pairing_failures_per_address,
            settings.pairing_failures_per_prefix,
            timedelta(seconds=settings.pairing_failure_window_seconds),
        ),
    )
    await process.relay_outbox(outbox)
    organization_events = OrganizationEventsHandler(devices.organizations)
    await process.consume(
        CONSUMER_GROUP, [DOMAIN_EVENTS], organization_events, processed_messages, wants=organization_events.wants
    )
    process.run(
        run_gateway_sweep(devices.gateways, settings.gateway_instance_timeout_seconds, settings.gateway_sweep_seconds)
    )
    process.run(run_pairing_purge(pairing, settings.pairing_failure_window_seconds / 4))
    await process.serve_grpc(
        devices_pb2_grpc.add_DevicesServicer_to_server, DevicesServicer(devices, pairing), settings.grpc_listen
    )
    log.info("devices service started", extra={"grpc_listen": settings.grpc_listen})
    await process.run_until_stopped()
