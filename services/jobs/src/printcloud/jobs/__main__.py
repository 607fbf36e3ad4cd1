"""`python -m printcloud.jobs` runs the jobs service; `... migrate` migrates its schema;
`... dead-letters` handles the printer events its consumer set aside."""

from printcloud.core.process.service_process import run_command
from printcloud.jobs.app import main, migrate_schema
from printcloud.jobs.persistence.tables import SCHEMA
from printcloud.jobs.settings import Settings

run_command(main, migrate_schema, Settings, consumer_schema=SCHEMA)
