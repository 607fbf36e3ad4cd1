"""The floor a figure's CPU is held to: the bare parts a request is made of, each measured in the
same run (`bench.parts`), CPU of both ends per request. A target is a multiple of the floor, so
that it holds on a slow machine and a fast one alike."""

from __future__ import annotations

from dataclasses import dataclass

# A reference machine answers a bare FastAPI GET at least this often with 16 clients. The figures
# that are times (a create's p50, the pipeline's p99, the reconnect storm) follow the machine's
# speed where the ratios to the floor do not, so a run says which kind of machine measured them
# (docs/performance.md, "Where the targets end").
REFERENCE_BARE_GETS_PER_SECOND = 8_000.0


@dataclass
class Floor:
    """CPU milliseconds per bare request; 0 until measured."""

    api_ms: float = 0.0  # a FastAPI GET: its server and the load generator
    grpc_ms: float = 0.0  # a gRPC unary call: the caller and the server
    transaction_ms: float = 0.0  # a 4-statement transaction: the client and PostgreSQL
    select_ms: float = 0.0  # a one-row SELECT: the client and PostgreSQL
    api_per_second: float = 0.0  # the bare FastAPI GETs answered a second

    @property
    def machine(self) -> str:
        """How this machine compares with a reference machine; empty while the bare GET is not measured."""
        if not self.api_per_second:
            return ""
        measured = f"bare FastAPI GET {self.api_per_second:,.0f}/s"
        reference = f"{REFERENCE_BARE_GETS_PER_SECOND:,.0f}/s"
        if self.api_per_second >= REFERENCE_BARE_GETS_PER_SECOND:
            return f"a reference machine: {measured} (a reference machine answers {reference})"
        share = self.api_per_second / REFERENCE_BARE_GETS_PER_SECOND
        return (
            f"slower than a reference machine: {measured}, {share:.0%} of a reference machine's {reference};"
            " the figures that are times follow it"
        )

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
