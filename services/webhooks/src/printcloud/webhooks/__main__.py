"""`python -m printcloud.webhooks` runs the webhooks service; `... migrate` migrates its
schema; `... dead-letters` lists, replays or discards the messages its consumer set aside."""

from printcloud.core.process.service_process import run_command
from printcloud.webhooks.app import main, migrate_schema
from printcloud.webhooks.persistence.tables import SCHEMA
from printcloud.webhooks.settings import Settings

run_command(main, migrate_schema, Settings, consumer_schema=SCHEMA)
