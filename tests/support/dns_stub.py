"""A DNS server on loopback answering A queries for one name with chosen addresses, so a test can
see a client resolve a name to several replicas (as a headless Service does) without touching
/etc/hosts. Every other question gets an empty answer."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import struct
from collections.abc import AsyncIterator
from typing import Any

_A, _IN = 1, 1


def _question_end(packet: bytes) -> int:
    at = 12
    while packet[at]:
        at += packet[at] + 1
    return at + 5  # the zero label, then type and class


def _name(packet: bytes) -> str:
    labels, at = [], 12
    while packet[at]:
        labels.append(packet[at + 1 : at + 1 + packet[at]].decode())
        at += packet[at] + 1
    return ".".join(labels).lower()


def answer(query: bytes, name: str, addresses: list[str]) -> bytes:
    end = _question_end(query)
    qtype, _ = struct.unpack("!HH", query[end - 4 : end])
    records = [
        struct.pack("!HHHIH", 0xC00C, _A, _IN, 5, 4) + ipaddress.IPv4Address(a).packed
        for a in (addresses if qtype == _A and _name(query) == name.lower() else [])
    ]
    header = query[:2] + struct.pack("!HHHHH", 0x8180, 1, len(records), 0, 0)
    return header + query[12:end] + b"".join(records)


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, name: str, addresses: list[str]) -> None:
        self.name, self.addresses = name, addresses
        self.transport: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.transport.sendto(answer(data, self.name, self.addresses), addr)


@contextlib.asynccontextmanager
async def dns_stub(name: str, addresses: list[str]) -> AsyncIterator[int]:
    """Serves until the block ends; yields the UDP port on 127.0.0.1."""
    transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
        lambda: _Protocol(name, addresses), local_addr=("127.0.0.1", 0)
    )
    try:
        yield transport.get_extra_info("sockname")[1]
    finally:
        transport.close()
