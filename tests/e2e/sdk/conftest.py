"""The SDKs and the tool against the running stack (the session's), as an API user has them: an
organization of their own, a test-mode key, the four virtual printers."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, eventually
from tests.e2e.tenants import create_key, create_org


@dataclass(frozen=True)
class ApiUser:
    base_url: str
    key: str

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a program the user runs: the spec's two variables, and no saved login."""
        return {**os.environ, "PRINTCLOUD_BASE_URL": self.base_url, "PRINTCLOUD_API_KEY": self.key, **extra}


@pytest.fixture(scope="package")
def api_user(stack: Stack) -> ApiUser:
    key = create_key(stack, create_org(stack, "SDK-users"), "test", "read,print,admin")
    with api(stack.api_url, key) as client:

        def all_online() -> bool:
            printers = client.get("/v1/printers").json()["data"]
            return len(printers) == 4 and all(printer["state"] == "online" for printer in printers)

        eventually(all_online, timeout=60, what="the virtual printers online")
    return ApiUser(stack.api_url, key)
