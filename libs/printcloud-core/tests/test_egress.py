"""The guarded client's decisions (no connection is made for a refused destination) and its
exchanges with a real server on 127.0.0.1."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import pytest

from printcloud.core.http.egress import EgressFailed, EgressGuard, EgressRefused, literal_address
from tests.support.content_server import ContentServer, Route, content_server
from tests.support.receiver import Answer, Receiver, always

LOOPBACK_ONLY = ["127.0.0.1/32"]

# Every one must be refused by the static check alone (no resolver is consulted for them).
HOSTILE_URLS = [
    "http://10.0.0.1/doc.pdf",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://127.0.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://0.0.0.0/",
    "http://0/",
    "http://2130706433/",  # decimal 127.0.0.1
    "http://017700000001/",  # octal
    "http://0x7f000001/",  # hex
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://10.1/",
    "http://2852039166/",  # decimal 169.254.169.254
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:a9fe:a9fe]/",  # mapped 169.254.169.254
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    "http://[64:ff9b:1::5db8:d822]/",  # local-use NAT64, even of a public IPv4 address
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://[ff02::1]/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://198.18.0.1/",
    "http://user:secret-pass@example.com/doc.pdf",
    "http://example.com@127.0.0.1/",
    "http://:secret-pass@example.com/",
    "ftp://example.com/doc.pdf",
    "file:///etc/passwd",
    "gopher://example.com/",
    "javascript:alert(1)",
    "http://example.com:8080/doc.pdf",
    "https://example.com:22/",
    "http://93.184.216.34:8443/",
    "http://example.com:99999/",
    "http://example.com/" + "a" * 2048,
    "http://exa mple.com/",
    "http:\\\\127.0.0.1\\doc.pdf",
    "http:///doc.pdf",
]

ALLOWED_URLS = [
    "http://example.com/doc.pdf",
    "https://example.com/doc.pdf?sig=abc",
    "https://93.184.216.34/doc.pdf",
    "http://example.com:80/",
    "https://[2606:4700:4700::1111]/",
    "http://[::ffff:93.184.216.34]/",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_url_is_refused_statically(url: str) -> None:
    with pytest.raises(EgressRefused) as refused:
        EgressGuard().check_url(url)
    assert "secret-pass" not in refused.value.reason


@pytest.mark.parametrize("url", ALLOWED_URLS)
def test_public_url_passes_the_static_check(url: str) -> None:
    EgressGuard().check_url(url)


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706434", "127.0.0.2"),
        ("017700000002", "127.0.0.2"),
        ("0x7f000002", "127.0.0.2"),
        ("127.2", "127.0.0.2"),
        ("0x7f.0.0.2", "127.0.0.2"),
        ("[::ffff:127.0.0.2]", "::ffff:127.0.0.2"),
        ("example.com", None),
        ("deadbeef", None),
    ],
)
def test_literal_addresses_are_read_in_every_encoding(host: str, address: str | None) -> None:
    assert literal_address(host) == (ipaddress.ip_address(address) if address else None)


def test_allowlist_exempts_its_addresses_and_their_ports_only() -> None:
    guard = EgressGuard(LOOPBACK_ONLY)
    guard.check_url("http://127.0.0.1:8123/doc.pdf")
    guard.check_url("http://[::ffff:127.0.0.1]:8123/doc.pdf")
    for url in ("http://127.0.0.2:8123/", "http://2130706434/", "http://[::1]:8123/", "http://10.0.0.1/"):
        with pytest.raises(EgressRefused):
            guard.check_url(url)


def test_the_allowlist_setting_names_networks_separated_by_commas() -> None:
    guard = EgressGuard.from_setting(" 127.0.0.1/32, 10.1.0.0/16 ")
    assert guard.address_allowed(ipaddress.ip_address("10.1.2.3"))
    assert not guard.address_allowed(ipaddress.ip_address("10.2.0.1"))
    assert not EgressGuard.from_setting("").address_allowed(ipaddress.ip_address("127.0.0.1"))


def _resolving_to(*addresses: str) -> EgressGuard:
    guard = EgressGuard()

    async def resolver(host: str, port: int) -> list[str]:
        return list(addresses)

    guard.resolver = resolver
    return guard


@pytest.mark.parametrize(
    "addresses",
    [
        ["10.0.0.5"],
        ["169.254.169.254"],
        ["127.0.0.1"],
        ["::1"],
        ["fd00::1"],
        ["::ffff:192.168.0.1"],
        ["93.184.216.34", "10.0.0.5"],  # one bad address is enough
    ],
)
async def test_a_name_resolving_to_a_private_address_is_refused(addresses: list[str]) -> None:
    with pytest.raises(EgressRefused):
        await _resolving_to(*addresses).resolve("http://printer-files.example.com/doc.pdf")


async def test_a_refusal_does_not_say_what_the_name_resolved_to() -> None:
    with pytest.raises(EgressRefused) as refused:
        await _resolving_to("10.20.30.40").resolve("http://intranet.example.com/doc.pdf")
    assert refused.value.reason == "http://intranet.example.com is a private or reserved address."


async def test_a_name_resolving_to_public_addresses_is_allowed() -> None:
    resolved = await _resolving_to("93.184.216.34", "2606:2800:220:1::1").resolve("https://example.com/doc.pdf")
    assert [str(a) for a in resolved] == ["93.184.216.34", "2606:2800:220:1::1"]


@pytest.fixture(scope="module")
def server() -> Iterator[ContentServer]:
    with content_server() as running:
        yield running


def _loopback_guard(**names: str) -> EgressGuard:
    guard = EgressGuard(LOOPBACK_ONLY)

    async def resolver(host: str, port: int) -> list[str]:
        return [names[host]]

    guard.resolver = resolver
    return guard


async def test_request_fetches_from_an_allowlisted_address(server: ContentServer) -> None:
    url = server.serve("/ok.pdf", Route(body=b"%PDF-1.4 hello"))
    response = await EgressGuard(LOOPBACK_ONLY).request("GET", url, timeout=5, max_body_bytes=1000)
    assert (response.status, response.body) == (200, b"%PDF-1.4 hello")


async def test_request_connects_to_the_checked_address_and_keeps_the_name(server: ContentServer) -> None:
    server.serve("/named.pdf", Route(body=b"%PDF-named"))
    guard = _loopback_guard(**{"files.test": "127.0.0.1"})
    calls: list[str] = []
    original = guard.resolver

    async def counting(host: str, port: int) -> list[str]:
        calls.append(host)
        return await original(host, port)

    guard.resolver = counting
    response = await guard.request("GET", f"http://files.test:{server.port}/named.pdf", timeout=5, max_body_bytes=100)
    assert response.body == b"%PDF-named"
    # Resolved once, and that answer is what was connected to: a second DNS answer never counts.
    assert calls == ["files.test"]
    assert server.hits_of("/named.pdf")[-1].host == f"files.test:{server.port}"


async def test_request_refuses_a_name_rebound_to_a_private_address(server: ContentServer) -> None:
    server.serve("/rebound.pdf", Route(body=b"%PDF-secret"))
    guard = _loopback_guard(**{"files.test": "127.0.0.2"})
    with pytest.raises(EgressRefused):
        await guard.request("GET", f"http://files.test:{server.port}/rebound.pdf", timeout=5, max_body_bytes=100)
    assert server.hits_of("/rebound.pdf") == []


@pytest.mark.parametrize("host", ["127.0.0.2", "127.2", "2130706434", "0x7f000002", "017700000002", "[::1]"])
async def test_request_never_connects_to_a_refused_loopback_form(server: ContentServer, host: str) -> None:
    server.serve("/secret.pdf", Route(body=b"%PDF-secret"))
    with pytest.raises(EgressRefused):
        await EgressGuard(LOOPBACK_ONLY).request("GET", server.url("/secret.pdf", host), timeout=5, max_body_bytes=100)
    assert server.hits_of("/secret.pdf") == []


async def test_redirects_are_returned_not_followed(server: ContentServer) -> None:
    server.serve("/target.pdf", Route(body=b"%PDF-target"))
    url = server.serve("/moved", Route(status=302, headers={"Location": server.url("/target.pdf")}))
    response = await EgressGuard(LOOPBACK_ONLY).request("GET", url, timeout=5, max_body_bytes=100)
    assert response.status == 302
    assert server.hits_of("/target.pdf") == []


async def test_a_body_over_the_cap_fails_or_is_truncated(server: ContentServer) -> None:
    declared = server.serve("/declared", Route(body=b"x" * 5000))
    endless = server.serve("/endless", Route(stream_bytes=64 * 1024 * 1024))
    guard = EgressGuard(LOOPBACK_ONLY)
    for url in (declared, endless):
        with pytest.raises(EgressFailed, match="larger than 1000 bytes"):
            await guard.request("GET", url, timeout=10, max_body_bytes=1000)
    truncated = await guard.request("GET", declared, timeout=5, max_body_bytes=1000, truncate=True)
    assert truncated.body == b"x" * 1000


async def test_the_whole_exchange_is_bounded_by_the_timeout(server: ContentServer) -> None:
    url = server.serve("/slow", Route(body=b"late", delay=3))
    with pytest.raises(EgressFailed, match=r"within 0\.5 seconds"):
        await EgressGuard(LOOPBACK_ONLY).request("GET", url, timeout=0.5, max_body_bytes=100)


async def test_basic_auth_is_sent_and_never_in_failure_reasons(server: ContentServer) -> None:
    url = server.serve("/private.pdf", Route(body=b"%PDF-private", basic_auth=("alice", "s3cret-pass")))
    guard = EgressGuard(LOOPBACK_ONLY)
    response = await guard.request("GET", url, auth=("alice", "s3cret-pass"), timeout=5, max_body_bytes=100)
    assert response.body == b"%PDF-private"
    with pytest.raises(EgressFailed) as failed:
        await guard.request(
            "GET", "http://127.0.0.1:1/private.pdf", auth=("a", "s3cret-pass"), timeout=5, max_body_bytes=100
        )
    assert "s3cret-pass" not in failed.value.reason


async def test_basic_auth_outside_latin_1_is_sent_as_utf_8(server: ContentServer) -> None:
    # A content URL's password is whatever the client stored: it must be sent, not crash the fetcher.
    url = server.serve("/private.pdf", Route(body=b"%PDF-private", basic_auth=("zoë", "пароль-€")))
    guard = EgressGuard(LOOPBACK_ONLY)
    response = await guard.request("GET", url, auth=("zoë", "пароль-€"), timeout=5, max_body_bytes=100)
    assert (response.status, response.body) == (200, b"%PDF-private")


async def test_an_unresolvable_name_fails() -> None:
    guard = EgressGuard()

    async def nxdomain(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    guard.resolver = nxdomain
    with pytest.raises(EgressFailed, match="could not be resolved"):
        await guard.request("GET", "http://nowhere.example/doc.pdf", timeout=5, max_body_bytes=100)


async def _post(guard: EgressGuard, url: str) -> int:
    return (await guard.request("POST", url, content=b"{}", timeout=5, max_body_bytes=100)).status


async def test_a_connection_is_kept_alive_for_the_next_request_to_its_host() -> None:
    guard = EgressGuard(LOOPBACK_ONLY)
    with Receiver() as receiver:
        statuses = [await _post(guard, receiver.url("/kept")) for _ in range(3)]
        await guard.aclose()
    assert statuses == [200, 200, 200]
    assert len({request.client_port for request in receiver.received()}) == 1


async def test_the_path_and_query_arrive_as_written_with_only_non_ascii_encoded() -> None:
    # A signed URL's escapes (%2F, %2B, %41) are part of what was signed: none may be decoded.
    guard = EgressGuard(LOOPBACK_ONLY)
    with Receiver() as receiver:
        await _post(guard, receiver.url("/k%2Fx/café?cred=AKIA%2F2025&sig=a%2Bb%3D&r=%41%7E&s=1+2"))
        await guard.aclose()
    [request] = receiver.received()
    assert request.path == "/k%2Fx/caf%C3%A9?cred=AKIA%2F2025&sig=a%2Bb%3D&r=%41%7E&s=1+2"


@pytest.mark.parametrize("written", ["bücher.test", "xn--bcher-kva.test", "BÜCHER.test"])
async def test_an_international_name_in_either_form_is_sent_in_its_ascii_form(written: str) -> None:
    guard = _loopback_guard(**{written.lower(): "127.0.0.1"})
    with Receiver() as receiver:
        port = receiver.url().split(":")[2].split("/")[0]
        assert await _post(guard, f"http://{written}:{port}/idn") == 200
        await guard.aclose()
    [request] = receiver.received()
    assert request.headers["host"] == f"xn--bcher-kva.test:{port}"


async def test_names_sharing_an_address_never_share_a_connection() -> None:
    # A connection checked one name's certificate; another name must not ride on it.
    guard = _loopback_guard(**{"a.test": "127.0.0.1", "b.test": "127.0.0.1"})
    with Receiver() as receiver:
        port = receiver.url().split(":")[2].split("/")[0]
        for host in ("a.test", "b.test", "a.test", "b.test"):
            assert await _post(guard, f"http://{host}:{port}/shared") == 200
        await guard.aclose()
    connections: dict[str, set[int]] = {}
    for request in receiver.received():
        connections.setdefault(request.headers["host"].split(":")[0], set()).add(request.client_port)
    assert len(connections["a.test"]) == len(connections["b.test"]) == 1
    assert connections["a.test"] != connections["b.test"]


async def test_a_kept_connection_never_spares_a_rebound_name_its_check() -> None:
    answers = {"files.test": "127.0.0.1"}
    guard = EgressGuard(LOOPBACK_ONLY)

    async def resolver(host: str, port: int) -> list[str]:
        return [answers[host]]

    guard.resolver = resolver
    with Receiver() as receiver:
        url = receiver.url("/rebound").replace("127.0.0.1", "files.test")
        assert await _post(guard, url) == 200
        answers["files.test"] = "127.0.0.2"
        with pytest.raises(EgressRefused):
            await _post(guard, url)
        await guard.aclose()
    assert len(receiver.received()) == 1


async def test_cookies_are_never_carried_to_the_next_request() -> None:
    # One host serves many organizations' endpoints: one answer's cookie must not reach another request.
    guard = EgressGuard(LOOPBACK_ONLY)
    with Receiver(always(Answer(headers={"set-cookie": "session=secret-of-a; Path=/"}))) as receiver:
        for _ in range(2):
            assert await _post(guard, receiver.url("/cookies")) == 200
        await guard.aclose()
    assert [request.headers.get("cookie") for request in receiver.received()] == [None, None]


def _allowlisted_resolving(names: dict[str, list[str]]) -> EgressGuard:
    guard = EgressGuard(LOOPBACK_ONLY)

    async def resolver(host: str, port: int) -> list[str]:
        if host not in names:
            raise OSError("no such name")
        return names[host]

    guard.resolver = resolver
    return guard


async def test_a_name_may_use_another_port_only_when_all_its_addresses_are_allowlisted() -> None:
    guard = _allowlisted_resolving(
        {"files.test": ["127.0.0.1"], "mixed.test": ["127.0.0.1", "93.184.216.34"], "public.test": ["93.184.216.34"]}
    )
    await guard.check_port("http://files.test:8123/doc.pdf")
    for url in ("http://mixed.test:8123/doc.pdf", "http://public.test:8080/doc.pdf", "http://gone.test:8080/doc.pdf"):
        guard.check_url(url)  # statically fine: the name's addresses decide
        with pytest.raises(EgressRefused, match="only ports 80, 443"):
            await guard.check_port(url)


async def test_the_usual_ports_and_literal_addresses_need_no_resolution() -> None:
    guard = _allowlisted_resolving({})  # any resolution would fail
    await guard.check_port("https://public.test/doc.pdf")
    await guard.check_port("http://public.test:80/doc.pdf")
    await guard.check_port("http://127.0.0.1:8123/doc.pdf")
