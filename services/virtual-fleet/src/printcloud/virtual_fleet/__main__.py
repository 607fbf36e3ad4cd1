import asyncio

from printcloud.virtual_fleet import app

asyncio.run(app.main())
