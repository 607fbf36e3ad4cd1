"""`python -m printcloud.<service> dead-letters ...`: an operator's view of a consumer's dead letters.

dead-letters list [--all]   one JSON line per dead letter not yet replayed (--all: every one)
dead-letters replay ID      sends the record again to its topic and marks it replayed
dead-letters discard ID     deletes it, once it is known not to matter
"""

from __future__ import annotations

import json
import sys
import uuid

from sqlalchemy import MetaData

from printcloud.core.db.database import Database
from printcloud.core.ids import parse_uuid
from printcloud.core.kafka.bus import Producer
from printcloud.core.kafka.cluster import KafkaCluster
from printcloud.core.kafka.dead_letters import DeadLetters

USAGE = "usage: dead-letters list [--all] | replay ID | discard ID"


async def run_dead_letters_command(
    database_url: str, kafka: KafkaCluster | str, schema: str, arguments: list[str]
) -> int:
    letter_id = parse_uuid(arguments[1]) if len(arguments) == 2 else None
    if arguments not in (["list"], ["list", "--all"]) and not (arguments[0] in ("replay", "discard") and letter_id):
        print(USAGE, file=sys.stderr)
        return 2
    db = Database.connect(database_url)
    store = DeadLetters(db, MetaData(schema=schema))
    try:
        if letter_id is None:
            for letter in await store.list(include_replayed=arguments[1:] == ["--all"]):
                print(json.dumps(letter.summary()))
            return 0
        if arguments[0] == "discard":
            return _outcome(await store.discard(letter_id), letter_id, "discarded")
        producer = Producer(kafka)
        await producer.start()
        try:
            return _outcome(await store.replay(letter_id, producer), letter_id, "replayed")
        finally:
            await producer.stop()
    finally:
        await db.close()


def _outcome(found: bool, letter_id: uuid.UUID, done: str) -> int:
    if not found:
        print(f"no dead letter {letter_id}", file=sys.stderr)
        return 1
    print(f"{done} {letter_id}")
    return 0
