"""A stack of its own for the contract run: it fetches content and sends webhooks to 127.0.0.1
only (PRINTCLOUD_EGRESS_ALLOWLIST), where the test's servers answer, and its test-job cap is out
of reach of a run's thousands of creates."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF
from tests.e2e.stacks import LogFile, running_stack
from tests.support.content_server import ContentServer, Route, content_server
from tests.support.receiver import Receiver

DOCUMENT_PATH = "/document.pdf"


@pytest.fixture(scope="package")
def contract_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("contract-stack") / "services.log"
    env = {"PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32", "PRINTCLOUD_TEST_JOBS_PER_DAY": "1000000"}
    with running_stack(Path(logs).parent, LogFile(logs), env) as running:
        yield running


@pytest.fixture(scope="package")
def documents() -> Iterator[ContentServer]:
    with content_server() as server:
        server.serve(DOCUMENT_PATH, Route(body=MINIMAL_PDF, headers={"Content-Type": "application/pdf"}))
        yield server


@pytest.fixture(scope="package")
def webhook_receiver() -> Iterator[Receiver]:
    with Receiver() as receiver:
        yield receiver
