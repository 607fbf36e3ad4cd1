"""The floor a figure's CPU is held to: the bare parts a request is made of, each measured in the
same run (`bench.parts`), CPU of both ends per request. A target is a multiple of the floor, so
that it holds on a slow machine and a fast one alike."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Floor:
    """CPU milliseconds per bare request; 0 until measured."""

    api_ms: float = 0.0  # a FastAPI GET: its server and the load generator
    grpc_ms: float = 0.0  # a gRPC unary call: the caller and the server
    transaction_ms: float = 0.0  # a 4-statement transaction: the client and PostgreSQL
    select_ms: float = 0.0  # a one-row SELECT: the client and PostgreSQL

    @property
    def job_ms(self) -> float:
        """A job's floor: its request, a call between services and two transactions; 0 while a
        part of it is not measured."""
        return _all_or_nothing(self.api_ms, self.grpc_ms, 2 * self.transaction_ms)

    @property
    def read_ms(self) -> float:
        """A read's floor: its request, a call between services and a SELECT."""
        return _all_or_nothing(self.api_ms, self.grpc_ms, self.select_ms)


def _all_or_nothing(*parts: float) -> float:
    return sum(parts) if all(parts) else 0.0
