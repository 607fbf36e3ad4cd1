import asyncio

from printcloud.webhooks.app import main

asyncio.run(main())
