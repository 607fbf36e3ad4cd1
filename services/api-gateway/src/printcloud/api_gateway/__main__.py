import asyncio

from printcloud.api_gateway import app

asyncio.run(app.main())
