"""The Kafka topics of the system, in one place.

- DOMAIN_EVENTS: job, computer and printer changes as `envelope.Message`s, keyed by the
  resource id so that one resource's events stay in order.
- AGENT_COMMANDS: work for connected agents (deliver a job, cancel it, disconnect), keyed by
  computer id.
- BROKER_EPOCH: one record naming the life of the broker's log (`printcloud.core.kafka.broker_epoch`).
"""

from __future__ import annotations

DOMAIN_EVENTS = "printcloud.domain-events"
AGENT_COMMANDS = "printcloud.agent-commands"

BROKER_EPOCH = "printcloud.broker-epoch"

ALL_TOPICS: tuple[str, ...] = (DOMAIN_EVENTS, AGENT_COMMANDS)
PARTITIONS = 6
