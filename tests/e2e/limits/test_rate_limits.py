"""The spec's request rate through the public API, on several replicas and with Redis gone."""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import redis

from tests.e2e.client import api, assert_error, eventually
from tests.e2e.limits.conftest import LimitsStack
from tests.e2e.tenants import create_key, create_org

LIMIT = 20


def _burst(urls: list[str], key: str, count: int) -> tuple[list[httpx.Response], float]:
    """`count` requests at once, spread over `urls` in turn; the answers and the seconds they took."""
    clients = [api(url, key) for url in urls]
    try:
        for client in clients:  # connections open before the clock starts
            client.get("/healthz")
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(lambda n: clients[n % len(clients)].get("/v1/whoami"), range(count)))
        return answers, time.monotonic() - began
    finally:
        for client in clients:
            client.close()


def test_one_key_gets_at_most_20_per_second_across_two_replicas(limits_stack: LimitsStack) -> None:
    stack = limits_stack.stack
    org = create_org(stack, "Limited")
    key, other = create_key(stack, org, "live", "read"), create_key(stack, org, "live", "read")
    urls = [stack.api_urls["api-gateway"], stack.api_urls["api-gateway-2"]]
    answers, elapsed = _burst(urls, key, 100)
    admitted = [a for a in answers if a.status_code == 200]
    print(f"\n100 requests over two replicas in {elapsed:.2f}s: {len(admitted)} admitted")
    # In any span [0, T] a one-second sliding window admits at most LIMIT * (floor(T) + 1); the
    # burst normally takes well under a second, making that exactly LIMIT.
    assert LIMIT <= len(admitted) <= LIMIT * (math.floor(elapsed) + 1)
    for answer in answers:
        assert answer.headers["ratelimit-limit"] == str(LIMIT)
        if answer.status_code != 200:
            assert_error(answer, 429, "rate_limited")
            assert answer.headers["retry-after"] == "1"
            assert answer.headers["ratelimit-remaining"] == "0"
    # Both replicas admitted some of them: the limit held for their sum, not for each.
    assert {str(a.url).rsplit("/v1", 1)[0] for a in admitted} == set(urls)
    with api(urls[1], other) as unaffected:
        answer = unaffected.get("/v1/whoami")
        assert answer.status_code == 200 and answer.headers["ratelimit-remaining"] == str(LIMIT - 1)


def test_bad_keys_are_limited_per_address_across_replicas(limits_stack: LimitsStack) -> None:
    urls = list(limits_stack.stack.api_urls.values())[:2]
    answers, elapsed = _burst(urls, "svc_live_" + "0" * 43, 60)
    unauthorized = [a for a in answers if a.status_code == 401]
    assert len(unauthorized) <= LIMIT * (math.floor(elapsed) + 1)
    for answer in answers:
        if answer.status_code != 401:
            assert_error(answer, 429, "rate_limited")


def test_requests_are_served_while_redis_is_down(limits_stack: LimitsStack) -> None:
    stack = limits_stack.stack
    url = stack.api_urls["api-gateway-3"]
    key = create_key(stack, create_org(stack, "Outage"), "live", "read")
    private = redis.Redis.from_url(limits_stack.private_redis.url)
    with api(url, key) as client:
        assert client.get("/v1/whoami").status_code == 200
        assert private.keys(f"{limits_stack.key_prefix}key:*"), "the replica keeps its window in its Redis"
        private.close()
        statuses: list[int] = []
        stop = threading.Event()

        def steady() -> None:  # 10 requests a second, under the limit, before and after the kill
            while not stop.is_set():
                answer = client.get("/v1/whoami")
                statuses.append(answer.status_code)
                assert "ratelimit-remaining" in answer.headers
                time.sleep(0.1)

        sender = threading.Thread(target=steady)
        sender.start()
        eventually(lambda: len(statuses) >= 5, what="requests before the kill")
        limits_stack.private_redis.kill()
        sent_before_kill = len(statuses)
        eventually(lambda: len(statuses) >= sent_before_kill + 10, what="requests after the kill")
        stop.set()
        sender.join()
        assert set(statuses) == {200}
        # The replica still holds the limit on its own.
        over = [client.get("/v1/whoami").status_code for _ in range(LIMIT + 5)]
        assert 429 in over
    metrics = httpx.get(f"{stack.ops_url('api-gateway-3')}/metrics").text
    failures = [line for line in metrics.splitlines() if line.startswith("printcloud_rate_limit_store_failures_total")]
    assert failures and float(failures[0].split()[-1]) >= 1
    assert 'printcloud_rate_limit_store_up{store="redis"} 0.0' in metrics
    logged = [r for name, r in limits_stack.logs.records() if name == "api-gateway-3"]
    assert any("rate-limit store unreachable" in r.get("msg", "") for r in logged)
