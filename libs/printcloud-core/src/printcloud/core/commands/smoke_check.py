"""`python -m printcloud.core.commands.smoke_check`: the smoke check the Helm chart's `helm test`
pod runs in the image, against a release that was just installed or upgraded.

`--ready host:port` asks every address `host` resolves to (each replica behind a headless
Service) for /readyz and expects 200; `--expect-status CODE URL` expects CODE from a GET of URL.
Retries until `--timeout` seconds have passed, so a rollout that is still settling gets its time.
"""

from __future__ import annotations

import argparse
import socket
import sys
import time

import httpx


def ready_urls(host_port: str) -> list[str]:
    host, _, port = host_port.rpartition(":")
    addresses = sorted({str(info[4][0]) for info in socket.getaddrinfo(host, int(port), proto=socket.IPPROTO_TCP)})
    return [f"http://{f'[{a}]' if ':' in a else a}:{port}/readyz" for a in addresses]


def failures(ready: list[str], expected: list[tuple[str, str]]) -> list[str]:
    problems: list[str] = []
    checks = [(url, 200) for host_port in ready for url in ready_urls(host_port)]
    checks += [(url, int(code)) for code, url in expected]
    with httpx.Client(timeout=5.0) as client:
        for url, status in checks:
            try:
                answer = client.get(url).status_code
            except httpx.HTTPError as exc:
                problems.append(f"{url}: {exc.__class__.__name__}")
                continue
            if answer != status:
                problems.append(f"{url}: {answer}, expected {status}")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m printcloud.core.commands.smoke_check")
    parser.add_argument("--ready", action="append", default=[], metavar="HOST:PORT")
    parser.add_argument("--expect-status", nargs=2, action="append", default=[], metavar=("CODE", "URL"))
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout
    while True:
        try:
            problems = failures(args.ready, args.expect_status)
        except OSError as exc:  # a name that does not resolve yet
            problems = [str(exc)]
        if not problems:
            print("all checks passed")
            return 0
        if time.monotonic() > deadline:
            print("\n".join(problems), file=sys.stderr)
            return 1
        time.sleep(2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
