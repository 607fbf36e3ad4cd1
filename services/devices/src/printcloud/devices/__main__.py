"""`python -m printcloud.devices` runs the devices service; `... migrate` migrates its
schema; `... dead-letters` lists, replays or discards the messages its consumer set aside."""

from printcloud.core.process.service_process import run_command
from printcloud.devices.app import main, migrate_schema
from printcloud.devices.persistence.tables import SCHEMA
from printcloud.devices.settings import Settings

run_command(main, migrate_schema, Settings, consumer_schema=SCHEMA)
