"""`python -m printcloud.core.commands.create_topics`: creates the system's Kafka topics with the configured
replication factor, then exits (a deployment's topics job). Processes create missing topics
too, so this only matters where the cluster's defaults or permissions should not decide."""

from __future__ import annotations

import asyncio

from printcloud.core.kafka.broker_epoch import ensure_topics
from printcloud.core.process.lifecycle import setup_process
from printcloud.core.process.service_process import check_kafka
from printcloud.core.settings import CommonSettings


class TopicsSettings(CommonSettings):
    service_name: str = "create-topics"


async def main() -> None:
    settings = TopicsSettings.load()
    setup_process(settings)
    await check_kafka(settings)
    await ensure_topics(settings.kafka_cluster())


if __name__ == "__main__":
    asyncio.run(main())
