"""`python -m printcloud.api_gateway` runs the gateway; `... migrate` migrates its schema."""

from printcloud.api_gateway.app import main
from printcloud.api_gateway.persistence.schema import migrate_gateway
from printcloud.api_gateway.settings import Settings
from printcloud.core.process.service_process import run_command

run_command(main, migrate_gateway, Settings)
