"""What the agent reports about the computer it runs on."""

from __future__ import annotations

import platform
import socket

from printcloud.agent import AGENT_VERSION
from printcloud.protocol.messages import ComputerInfo

_OS_FAMILIES = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}


def local_computer() -> ComputerInfo:
    system = platform.system()
    return ComputerInfo(
        hostname=socket.gethostname(),
        os=_OS_FAMILIES.get(system, system.lower()),
        os_version=platform.release(),
        arch=platform.machine(),
        agent_version=AGENT_VERSION,
    )
