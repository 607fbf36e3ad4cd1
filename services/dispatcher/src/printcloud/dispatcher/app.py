"""Wiring of the dispatcher process."""

from __future__ import annotations

from printcloud.core import rpc, topics
from printcloud.core.bus import Consumer, Producer, ensure_topics
from printcloud.core.ops import Readiness, serve_ops
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.dispatcher.settings import Settings
from printcloud.dispatcher.transport.events import DomainEventHandler
from printcloud.v1 import jobs_pb2_grpc


async def main() -> None:
    settings = Settings()
    setup_process(settings)
    readiness = Readiness()
    await ensure_topics(settings.kafka_bootstrap_servers)
    producer = Producer(settings.kafka_bootstrap_servers)
    await producer.start()
    jobs_channel = rpc.channel(settings.jobs_grpc_target)
    handler = DomainEventHandler(jobs_pb2_grpc.JobsStub(jobs_channel), producer)
    consumer = Consumer(settings.kafka_bootstrap_servers, "dispatcher", [topics.DOMAIN_EVENTS], handler)
    await consumer.start()
    tasks = [consumer.run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, readiness))
    readiness.mark_started()
    await run_until_stopped(tasks, [consumer.stop, producer.stop, jobs_channel.close])
