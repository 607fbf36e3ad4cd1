"""The reads and writes of a batch of agent connections or disconnections, set-based: a statement
covers every computer of the batch, not one computer each. The computers of a replica presumed
dead are such a batch.

Sent by the driver in a driver transaction (`core.db.driver_transaction`), compiled once. Addressed
by computer id, as the repository's agent-lifecycle queries are: the agent-gateway has
authenticated each agent's credential, which names exactly one computer.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.dialects.postgresql import ARRAY, UUID

from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.devices.domain.printers import KnownPrinter
from printcloud.devices.domain.states import COMPUTER_ONLINE
from printcloud.devices.persistence.repository import known_printer
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.persistence.tables import computers, gateway_instances, printers

_IDS = ARRAY(UUID(as_uuid=True))

# Locked in id order: two batches that share computers take them in the same order, so neither
# waits on the other in a circle.
_lock_computers = CompiledRead.of(
    select(computers)
    .where(computers.c.id == func.any(bindparam("computer_ids", type_=_IDS)), computers.c.deleted_at.is_(None))
    .order_by(computers.c.id)
    .with_for_update()
)

# SKIP LOCKED lets devices replicas sweep side by side; a replica heartbeating at this moment
# either comes first (and stays alive) or finds itself unknown and drops its connections.
_forget_silent_gateways = CompiledWrite.of(
    delete(gateway_instances).where(
        gateway_instances.c.instance_id.in_(
            select(gateway_instances.c.instance_id)
            .where(gateway_instances.c.last_heartbeat_at < bindparam("stale_before"))
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
    )
)

_lock_orphaned_computers = CompiledRead.of(
    select(computers)
    .where(
        computers.c.state == bindparam("online"),
        computers.c.deleted_at.is_(None),
        computers.c.gateway_instance.is_not(None),
        computers.c.gateway_instance.not_in(
            select(gateway_instances.c.instance_id).where(
                gateway_instances.c.last_heartbeat_at >= bindparam("stale_before")
            )
        ),
    )
    .order_by(computers.c.id)
    .with_for_update(skip_locked=True)
)

_printers_of_computers = CompiledRead.of(
    select(printers)
    .where(printers.c.computer_id == func.any(bindparam("computer_ids", type_=_IDS)))
    .order_by(printers.c.computer_id, printers.c.id)
)

# What a connection or a disconnection changes of a computer, one array a column.
_WRITTEN = ("state", "hostname", "os", "os_version", "arch", "agent_version", "last_seen_at", "gateway_instance")
_written = (
    func.unnest(
        bindparam("computer_ids", type_=_IDS),
        *(bindparam(f"new_{column}", type_=ARRAY(computers.c[column].type)) for column in _WRITTEN),
    )
    .table_valued("id", *_WRITTEN)
    .render_derived()
)
_write_computers = CompiledWrite.of(
    update(computers).where(computers.c.id == _written.c.id).values({column: _written.c[column] for column in _WRITTEN})
)

_insert_printer = CompiledWrite.of(printers.insert().values({c.name: bindparam(f"new_{c.name}") for c in printers.c}))

_remove_printers = CompiledWrite.of(
    update(printers)
    .where(printers.c.id == func.any(bindparam("printer_ids", type_=_IDS)))
    .values(removed_at=bindparam("now"), updated_at=bindparam("now"))
)

# A printer's changes take a few shapes (its condition; its report's facts; a return): one
# statement each, compiled the first time it is met.
_printer_updates: dict[frozenset[str], CompiledWrite] = {}


async def lock_computers(tx: DriverTransaction, computer_ids: Collection[uuid.UUID]) -> dict[uuid.UUID, ComputerRow]:
    """The computers among `computer_ids` not deleted, locked in id order."""
    rows = await tx.fetch(_lock_computers, computer_ids=list(computer_ids))
    return {row.id: ComputerRow.of(row) for row in rows}


async def forget_silent_gateways(tx: DriverTransaction, stale_before: datetime) -> None:
    """Deletes the replicas that have not heartbeated since `stale_before`."""
    await tx.execute(_forget_silent_gateways, stale_before=stale_before)


async def lock_orphaned_computers(tx: DriverTransaction, stale_before: datetime) -> dict[uuid.UUID, ComputerRow]:
    """The online computers held by a replica with no heartbeat since `stale_before`, locked in id
    order; those another transaction holds are left for the next sweep."""
    rows = await tx.fetch(_lock_orphaned_computers, online=COMPUTER_ONLINE, stale_before=stale_before)
    return {row.id: ComputerRow.of(row) for row in rows}


async def printers_of_computers(
    tx: DriverTransaction, computer_ids: Collection[uuid.UUID]
) -> dict[uuid.UUID, list[KnownPrinter]]:
    """Every printer the computers have had, removed ones too, by computer, in id order."""
    known: dict[uuid.UUID, list[KnownPrinter]] = {computer_id: [] for computer_id in computer_ids}
    for row in await tx.fetch(_printers_of_computers, computer_ids=list(computer_ids)):
        known[row.computer_id].append(known_printer(row))
    return known


async def write_computers(tx: DriverTransaction, rows: Collection[ComputerRow]) -> None:
    """Writes what a connection or a disconnection changes of each computer, as `rows` have it."""
    if not rows:
        return
    values: dict[str, Any] = {"computer_ids": [row.id for row in rows]}
    for column in _WRITTEN:
        values[f"new_{column}"] = [getattr(row, column) for row in rows]
    await tx.execute(_write_computers, **values)


async def insert_printers(tx: DriverTransaction, rows: Sequence[Mapping[str, Any]]) -> None:
    """New printers, each a row of `repository.new_printer`."""
    await tx.executemany(_insert_printer, [{f"new_{column}": value for column, value in row.items()} for row in rows])


async def update_printers(
    tx: DriverTransaction, changes: Sequence[tuple[uuid.UUID, Mapping[str, Any]]], now: datetime
) -> None:
    """Writes each printer's `values`, as `repository.update_printer` does, sent together by shape."""
    by_shape: dict[frozenset[str], list[dict[str, Any]]] = {}
    for printer_id, values in changes:
        by_shape.setdefault(frozenset(values), []).append(
            {"printer_id": printer_id, "now": now, **{f"new_{column}": value for column, value in values.items()}}
        )
    for shape, rows in by_shape.items():
        await tx.executemany(_printer_update(shape), rows)


async def remove_printers(tx: DriverTransaction, printer_ids: Sequence[uuid.UUID], now: datetime) -> None:
    if printer_ids:
        await tx.execute(_remove_printers, printer_ids=list(printer_ids), now=now)


def _printer_update(shape: frozenset[str]) -> CompiledWrite:
    compiled = _printer_updates.get(shape)
    if compiled is None:
        compiled = _printer_updates[shape] = CompiledWrite.of(
            update(printers)
            .where(printers.c.id == bindparam("printer_id"))
            .values(
                {**{column: bindparam(f"new_{column}") for column in sorted(shape)}, "updated_at": bindparam("now")}
            )
        )
    return compiled
