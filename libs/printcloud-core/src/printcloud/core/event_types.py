"""The event types of the public contract (spec, "Subscribable event types"): webhooks deliver them,
the dashboard offers them; and the statuses of a delivery of one (spec, "Webhook delivery")."""

from __future__ import annotations

SUBSCRIBABLE: tuple[str, ...] = (
    "printjob.queued",
    "printjob.sent",
    "printjob.received",
    "printjob.printing",
    "printjob.done",
    "printjob.error",
    "printjob.cancelled",
    "printjob.expired",
    "computer.online",
    "computer.offline",
    "printer.added",
    "printer.removed",
    "printer.online",
    "printer.offline",
    "printer.updated",
)

DELIVERY_STATUSES: tuple[str, ...] = ("pending", "retrying", "succeeded", "failed")
