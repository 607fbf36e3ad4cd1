"""A stack of its own for killing the broker: every process checks the broker's epoch each second."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.stacks import LogFile, running_stack


@pytest.fixture(scope="package")
def broker_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("broker-stack")
    env = {"PRINTCLOUD_BROKER_CHECK_SECONDS": "1"}
    with running_stack(data_dir, LogFile(data_dir / "services.log"), env) as running:
        yield running
