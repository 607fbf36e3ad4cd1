import asyncio

from printcloud.dispatcher.app import main

asyncio.run(main())
