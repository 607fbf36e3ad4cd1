"""Plans: named quotas of live prints per calendar month (UTC). Test jobs and pings never count.

The names and numbers are settings (`PRINTCLOUD_PLANS`); these are the documented defaults.
Every organization starts on `DEFAULT_PLAN` (the `organizations.plan` column default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_PLAN = "free"
DEFAULT_PLANS: dict[str, int] = {"free": 100, "pro": 5_000, "business": 50_000}
DEFAULT_UPGRADE_URL = "https://printcloud.example.com/billing"


@dataclass(frozen=True)
class PlanCatalog:
    quotas: Mapping[str, int]

    def __post_init__(self) -> None:
        if DEFAULT_PLAN not in self.quotas:
            raise ValueError(f"the plans must include {DEFAULT_PLAN!r}, the plan every organization starts on")
        for name, quota in self.quotas.items():
            if not name.strip() or quota < 0:
                raise ValueError(f"plan {name!r}: a plan needs a name and a quota of 0 or more")

    def quota(self, plan: str) -> int:
        """The plan's live prints per month. A plan since removed from the settings gets the
        default plan's quota rather than none, so no organization is left unlimited by accident."""
        return self.quotas.get(plan, self.quotas[DEFAULT_PLAN])

    def checked(self, plan: str) -> str:
        if plan not in self.quotas:
            raise ValueError(f"no plan {plan!r}; the plans are {', '.join(sorted(self.quotas))}")
        return plan


DEFAULT_CATALOG = PlanCatalog(DEFAULT_PLANS)
