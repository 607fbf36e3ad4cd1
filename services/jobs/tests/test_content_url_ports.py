"""The port rule at creation: a content URL on a port other than 80 or 443 is refused whatever its
host, unless every address its host resolves to is in the egress allowlist (127.0.0.1/32 here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from printcloud.contracts.errors import ApiError

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack

NAMES = {"files.test": ["127.0.0.1"], "outside.test": ["127.0.0.2"], "mixed.test": ["127.0.0.1", "93.184.216.34"]}


@pytest.fixture
def resolving(stack: Stack) -> Iterator[list[str]]:
    """The service's guard resolves the names above only, and records what it was asked."""
    asked: list[str] = []
    original = stack.service.egress.resolver

    async def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        if host not in NAMES:
            raise OSError("no such name")
        return NAMES[host]

    stack.service.egress.resolver = resolver
    yield asked
    stack.service.egress.resolver = original


@pytest.mark.parametrize(
    "url",
    [
        "http://outside.test:8080/doc.pdf",
        "http://mixed.test:8443/doc.pdf",
        "http://nowhere.test:8080/doc.pdf",
        "https://93.184.216.34:8443/doc.pdf",
    ],
)
async def test_another_port_is_refused_at_creation(stack: Stack, resolving: list[str], url: str) -> None:
    scope = stack.new_scope()
    with pytest.raises(ApiError) as refused:
        await stack.create_job(scope, stack.add_printer(scope), content_type="pdf_uri", data=None, url=url)
    assert refused.value.code == "invalid_content_url"
    assert "only ports 80, 443" in refused.value.message


async def test_a_name_resolving_into_the_allowlist_may_use_another_port(stack: Stack, resolving: list[str]) -> None:
    scope = stack.new_scope()
    url = "http://files.test:8123/doc.pdf"
    job = await stack.create_job(scope, stack.add_printer(scope), content_type="pdf_uri", data=None, url=url)
    assert job.state == "queued" and resolving == ["files.test"]


async def test_the_usual_ports_are_not_resolved_at_creation(stack: Stack, resolving: list[str]) -> None:
    scope = stack.new_scope()
    url = "https://files.example.test/doc.pdf"
    job = await stack.create_job(scope, stack.add_printer(scope), content_type="pdf_uri", data=None, url=url)
    assert job.state == "queued" and resolving == []
