"""Free loopback ports for a stack that must not collide with anything else on the machine."""

from __future__ import annotations

import socket
from collections.abc import Collection


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int, exclude: Collection[int] = ()) -> list[int]:
    """`count` distinct free ports, none of them in `exclude`.

    Every socket stays bound until all are chosen: picking one port at a time and closing it lets
    the system hand the same port out twice, and two services of one stack then collide.
    """
    held: list[socket.socket] = []
    ports: list[int] = []
    try:
        while len(ports) < count:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            held.append(sock)
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
            if port not in exclude:
                ports.append(port)
    finally:
        for sock in held:
            sock.close()
    return ports


def port_answers(port: int, host: str = "127.0.0.1", timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
