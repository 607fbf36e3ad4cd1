"""A DNS server on loopback answering A queries for chosen names, so a test can see a client
resolve a name to several replicas (as a headless Service does) without touching /etc/hosts.
Every other question gets an empty answer."""

from __future__ import annotations

import contextlib
import ipaddress
import socketserver
import struct
import threading
from collections.abc import Iterator, Mapping

_A, _IN = 1, 1


def _question(packet: bytes) -> tuple[str, int, int]:
    """(name, type, end of the question) of a query."""
    labels, at = [], 12
    while packet[at]:
        labels.append(packet[at + 1 : at + 1 + packet[at]].decode())
        at += packet[at] + 1
    qtype, _ = struct.unpack("!HH", packet[at + 1 : at + 5])
    return ".".join(labels).lower(), qtype, at + 5


def answer(query: bytes, names: Mapping[str, list[str]]) -> bytes:
    name, qtype, end = _question(query)
    addresses = names.get(name, []) if qtype == _A else []
    records = [struct.pack("!HHHIH", 0xC00C, _A, _IN, 5, 4) + ipaddress.IPv4Address(a).packed for a in addresses]
    header = query[:2] + struct.pack("!HHHHH", 0x8180, 1, len(records), 0, 0)
    return header + query[12:end] + b"".join(records)


@contextlib.contextmanager
def dns_stub(names: Mapping[str, list[str]]) -> Iterator[int]:
    """Serves `names` (name -> IPv4 addresses, as they are at each query) until the block ends;
    yields the UDP port on 127.0.0.1."""

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            data, sock = self.request
            # Read at each query, so that a test can move a name to other addresses.
            lowered = {name.lower(): addresses for name, addresses in names.items()}
            sock.sendto(answer(data, lowered), self.client_address)

    server = socketserver.ThreadingUDPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="dns-stub", daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
