"""`python -m printcloud.devices` runs the devices service; `... migrate` migrates its schema."""

from printcloud.core.service_process import run_command
from printcloud.devices.app import main, migrate_schema
from printcloud.devices.settings import Settings

run_command(main, migrate_schema, Settings)
