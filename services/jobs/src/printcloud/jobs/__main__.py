"""`python -m printcloud.jobs` runs the jobs service."""

from __future__ import annotations

import asyncio

from printcloud.jobs import app

if __name__ == "__main__":
    asyncio.run(app.main())
