"""The Kafka topics of the system, in one place.

- DOMAIN_EVENTS: job, computer and printer changes as `envelope.Message`s, keyed by the
  resource id so that one resource's events stay in order.
- JOB_EVENTS: the `printjob.*` events of the jobs whose row names this topic, keyed by job id.
  Jobs are created on it when the jobs service is told to, and on DOMAIN_EVENTS otherwise, until
  a later release makes it the default: it takes a job's five events out of what the consumers
  of DOMAIN_EVENTS that want none of them must fetch (docs/upgrades.md, "Topics").
- AGENT_COMMANDS: work for connected agents (deliver a job, cancel it, disconnect), keyed by
  computer id.
- BROKER_EPOCH: one record naming the life of the broker's log (`printcloud.core.kafka.broker_epoch`).
"""

from __future__ import annotations

DOMAIN_EVENTS = "printcloud.domain-events"
JOB_EVENTS = "printcloud.job-events"
AGENT_COMMANDS = "printcloud.agent-commands"

BROKER_EPOCH = "printcloud.broker-epoch"

ALL_TOPICS: tuple[str, ...] = (DOMAIN_EVENTS, JOB_EVENTS, AGENT_COMMANDS)
PARTITIONS = 6
