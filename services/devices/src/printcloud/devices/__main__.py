"""`python -m printcloud.devices` runs the devices service."""

import asyncio

from printcloud.devices import app

asyncio.run(app.main())
