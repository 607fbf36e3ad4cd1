"""The devices use cases, each one a transaction that applies the domain rules to stored computers
and printers, and the only place that writes events and agent commands (to the outbox, in the
same transaction as the change). One module an area; `state_changes.py` holds the steps they
share. `DeviceUseCases` is every area but pairing codes, for the servicer that serves them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from printcloud.core.db.database import Database
from printcloud.devices.use_cases.agent_credentials import AgentCredentials
from printcloud.devices.use_cases.agents import Agents
from printcloud.devices.use_cases.computers import Computers
from printcloud.devices.use_cases.gateway_instances import GatewayInstances
from printcloud.devices.use_cases.organizations import OrganizationEvents
from printcloud.devices.use_cases.printers import Printers
from printcloud.devices.use_cases.virtual_computers import VirtualComputers


@dataclass(frozen=True)
class DeviceUseCases:
    computers: Computers
    printers: Printers
    credentials: AgentCredentials
    agents: Agents
    gateways: GatewayInstances
    virtual_computers: VirtualComputers
    organizations: OrganizationEvents

    @classmethod
    def on(cls, db: Database) -> Self:
        return cls(
            Computers(db),
            Printers(db),
            AgentCredentials(db),
            Agents(db),
            GatewayInstances(db),
            VirtualComputers(db),
            OrganizationEvents(db),
        )
