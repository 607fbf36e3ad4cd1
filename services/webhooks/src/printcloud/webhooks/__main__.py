"""`python -m printcloud.webhooks` runs the webhooks service; `... migrate` migrates its schema."""

from printcloud.core.service_process import run_command
from printcloud.webhooks.app import main, migrate_schema
from printcloud.webhooks.settings import Settings

run_command(main, migrate_schema, Settings)
