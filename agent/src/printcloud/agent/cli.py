"""`printcloud-agent`: enrol this computer, run the agent, inspect it."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path

import httpx

from printcloud.agent.backends.base import Backend
from printcloud.agent.client import REDISCOVER_SECONDS, AgentClient, AgentRejected
from printcloud.agent.config import AgentConfig, default_config_path, load_config, save_config
from printcloud.agent.host import local_computer
from printcloud.protocol.constants import ENROLL_PATH, PAIR_PATH

BACKENDS = ("cups", "windows", "virtual")


def default_backend() -> str:
    return "windows" if local_computer().os == "windows" else "cups"


def _backend(name: str, printer_poll: float = REDISCOVER_SECONDS) -> Backend:
    # Imported on demand: the Windows backend needs pywin32, which exists on Windows only.
    if name == "cups":
        from printcloud.agent.backends.cups.backend import CupsBackend, device_status_seconds

        return CupsBackend(device_status_seconds=device_status_seconds(printer_poll))
    if name == "windows":
        from printcloud.agent.backends.windows.backend import WindowsBackend
        from printcloud.agent.backends.windows.win32 import Pywin32Spooler

        return WindowsBackend(Pywin32Spooler())
    from printcloud.agent.backends.virtual import VirtualBackend

    return VirtualBackend()


def _enrolment_request(args: argparse.Namespace) -> tuple[str, dict[str, str], dict[str, str]]:
    """(path, body, headers) of the enrolment the arguments ask for: by pairing code or by API key."""
    body: dict[str, str] = {"hostname": local_computer().hostname}
    if args.name:
        body["name"] = args.name
    if args.code is None:
        return ENROLL_PATH, body, {"Authorization": f"Bearer {args.api_key}"}
    # `--code -` keeps the code out of the process list, where other users of the computer see it.
    code = sys.stdin.readline().strip() if args.code == "-" else args.code
    return PAIR_PATH, {**body, "code": code}, {}


def _refusal(response: httpx.Response) -> str:
    """The API's own message for a refused enrolment, on one line."""
    try:
        message = str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        message = response.text.strip()[:200] or response.reason_phrase
    retry = response.headers.get("Retry-After")
    return f"HTTP {response.status_code}: {message}" + (f" (retry in {retry} s)" if retry else "")


def enroll(args: argparse.Namespace) -> int:
    path, body, headers = _enrolment_request(args)
    server = args.server.rstrip("/")
    try:
        response = httpx.post(server + path, json=body, headers=headers, timeout=30.0)
    except httpx.HTTPError as exc:
        print(f"enrolment failed: cannot reach {server}: {exc}", file=sys.stderr)
        return 1
    if response.status_code != 201:
        print(f"enrolment failed: {_refusal(response)}", file=sys.stderr)
        return 1
    answer = response.json()
    config = AgentConfig(
        server_url=server,
        agent_gateway_url=answer["agentGatewayUrl"],
        computer_id=answer["computerId"],
        credential=answer["credential"],
    )
    save_config(config, args.config)
    print(f"enrolled computer {config.computer_id}; configuration written to {args.config}")
    return 0


async def _run_agent(client: AgentClient) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(client.stop()))
    await client.run()


def _load(path: Path) -> AgentConfig:
    try:
        return load_config(path)
    except FileNotFoundError:
        raise SystemExit(f"no configuration at {path}: run `printcloud-agent enroll` first") from None


def run(args: argparse.Namespace) -> int:
    config = _load(args.config)
    client = AgentClient(
        config.agent_gateway_url,
        config.credential,
        _backend(args.backend, args.printer_poll),
        local_computer(),
        state_dir=args.config.parent,
        rediscover_seconds=args.printer_poll,
    )
    try:
        asyncio.run(_run_agent(client))
    except AgentRejected as exc:
        print(f"agent stopped: {exc}", file=sys.stderr)
        return 2
    return 0


def status(args: argparse.Namespace) -> int:
    config = _load(args.config)
    try:
        answer = httpx.get(config.agent_gateway_url.rstrip("/") + "/healthz", timeout=5.0)
        reachable = answer.status_code == 200
    except httpx.HTTPError:
        reachable = False
    print(json.dumps({**config.public_json(), "gatewayReachable": reachable}, indent=2))
    return 0 if reachable else 1


def printers(args: argparse.Namespace) -> int:
    found = asyncio.run(_backend(args.backend).discover())
    print(json.dumps([printer.to_wire() for printer in found], indent=2))
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="printcloud-agent", description=__doc__)
    root.add_argument(
        "--config",
        type=Path,
        default=None,
        help="configuration file (default: $PRINTCLOUD_AGENT_CONFIG or ~/.config/printcloud-agent/agent.json)",
    )
    root.add_argument("--log-level", default="INFO")
    commands = root.add_subparsers(dest="command", required=True)

    enroll_cmd = commands.add_parser("enroll", help="register this computer with a pairing code or an admin API key")
    enroll_cmd.add_argument("--server", required=True, help="the API base URL")
    credential = enroll_cmd.add_mutually_exclusive_group(required=True)
    credential.add_argument("--code", help="a pairing code from the organization's owner ('-' reads it from stdin)")
    credential.add_argument("--api-key", help="an API key of the organization with the admin scope")
    enroll_cmd.add_argument("--name", help="the computer's display name (default: its hostname)")
    enroll_cmd.set_defaults(handler=enroll)

    for name, handler, text in (
        ("run", run, "connect and print jobs until stopped"),
        ("printers", printers, "show the printers the agent would report, without connecting"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument(
            "--backend", choices=BACKENDS, default=default_backend(), help="the spooler to use (default: this OS's)"
        )
        command.set_defaults(handler=handler)
        if name == "run":
            command.add_argument(
                "--printer-poll",
                type=float,
                default=REDISCOVER_SECONDS,
                help="seconds between checks of the spooler's printers (default: %(default)s)",
            )

    commands.add_parser("status", help="show the configuration and whether the gateway answers").set_defaults(
        handler=status
    )
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.config = args.config or default_config_path()
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    # httpx logs every request URL at INFO, and download URLs carry a token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
