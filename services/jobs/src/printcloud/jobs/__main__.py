"""`python -m printcloud.jobs` runs the jobs service; `... migrate` migrates its schema."""

from printcloud.core.service_process import run_command
from printcloud.jobs.app import main, migrate_schema
from printcloud.jobs.settings import Settings

run_command(main, migrate_schema, Settings)
