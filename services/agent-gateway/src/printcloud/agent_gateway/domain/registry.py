"""Which computers hold a connection to this replica. One connection per computer: a newer one
replaces the older."""

from __future__ import annotations

from typing import Generic, TypeVar

C = TypeVar("C")


class ConnectionRegistry(Generic[C]):
    def __init__(self) -> None:
        self._by_computer: dict[str, C] = {}

    def get(self, computer_id: str) -> C | None:
        return self._by_computer.get(computer_id)

    def register(self, computer_id: str, connection: C) -> C | None:
        """Makes `connection` the computer's current one; returns the one it replaces."""
        previous = self._by_computer.get(computer_id)
        self._by_computer[computer_id] = connection
        return previous if previous is not connection else None

    def unregister(self, computer_id: str, connection: C) -> bool:
        """Forgets `connection`; False when a newer connection had already replaced it."""
        if self._by_computer.get(computer_id) is not connection:
            return False
        del self._by_computer[computer_id]
        return True

    def computer_ids(self) -> list[str]:
        return list(self._by_computer)

    def connections(self) -> list[C]:
        return list(self._by_computer.values())

    def __len__(self) -> int:
        return len(self._by_computer)
