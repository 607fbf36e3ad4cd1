import asyncio

from printcloud.agent_gateway import app

asyncio.run(app.main())
