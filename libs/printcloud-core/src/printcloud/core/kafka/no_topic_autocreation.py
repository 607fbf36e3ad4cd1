"""A patch of aiokafka: no client creates a topic by asking for it (docs/reliability.md, `broker-restart`).

aiokafka asks for a topic's metadata with `allow_auto_topic_creation` set, and a broker that
allows it (the embedded broker always does) creates the topic at once with its own default
partition count. After a broker lost its log, a producer asking before `ensure_topics` ran got
`printcloud.domain-events` with 4 partitions instead of 6, and its sends to the two partitions its
cached metadata still named were acknowledged and never readable: jobs' events lost from the
feed (docs/reliability.md, `broker-restart`). Topics are made only by `ensure_topics`, with their
partition count; a send before it fails and its outbox row is sent again.

aiokafka has no setting for it, so its metadata request is replaced with one that asks without
creating; `install()` is idempotent and runs when `printcloud.core.kafka.cluster` is imported,
which every client's options come from.
"""

from __future__ import annotations

import aiokafka.client
from aiokafka.protocol.metadata import MetadataRequest


class MetadataRequestWithoutCreation(MetadataRequest):
    def __init__(self, topics: list[str] | None = None, allow_auto_topic_creation: bool | None = None) -> None:
        super().__init__(topics, allow_auto_topic_creation=False)


def install() -> None:
    aiokafka.client.MetadataRequest = MetadataRequestWithoutCreation  # type: ignore[attr-defined]
