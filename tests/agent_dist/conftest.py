"""The agent's distribution, built by `make agent-dist` (or here, when dist/agent is stale)."""

from __future__ import annotations

import pytest

from tests.support.agent_dist import AgentDist, agent_dist


@pytest.fixture(scope="package")
def dist(tmp_path_factory: pytest.TempPathFactory) -> AgentDist:
    return agent_dist(tmp_path_factory.mktemp("agent-dist"))
