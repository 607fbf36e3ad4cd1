"""`pcloud`: the PrintCloud API from a terminal, for API users (operators have `printcloud admin`).

    pcloud login                       # asks for the address and the key (not echoed)
    pcloud printers
    pcloud print invoice.pdf --printer virtual-office --option duplex=long-edge --wait
    pcloud jobs --state error --watch
    pcloud events tail
    pcloud webhooks listen --forward-to http://localhost:8000/webhooks

`PRINTCLOUD_BASE_URL` and `PRINTCLOUD_API_KEY` override what `login` saved. Exit status: 0 on
success (`print --wait`: the job is `done`), 1 when the API refused or the job did not print, 2
for a wrong command line.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from printcloud_sdk import config, models
from printcloud_sdk._sync_client import PrintCloud
from printcloud_sdk.errors import ApiError, AuthenticationError, PrintCloudError
from printcloud_sdk.events import AnyEvent
from printcloud_sdk.webhooks import new_secret, signed_headers

FORWARD_USER_AGENT = "pcloud-webhooks-listen/1.0"
FORWARD_TIMEOUT_SECONDS = 10.0
# Quick retries for a local receiver that is restarting; a receiver that keeps failing is reported.
FORWARD_WAITS = (0.5, 1.0, 2.0)


class Usage(Exception):
    """A wrong command line or missing setup: exit status 2."""


def _client() -> PrintCloud:
    credentials = config.load()
    if not credentials.base_url or not credentials.api_key:
        raise Usage("not logged in: run `pcloud login` (or set PRINTCLOUD_BASE_URL and PRINTCLOUD_API_KEY)")
    return PrintCloud(credentials.api_key, base_url=credentials.base_url)


def _out(line: str) -> None:
    print(line, flush=True)


def _dump(value: Any) -> None:
    _out(json.dumps(value, ensure_ascii=False))


def _show(value: Any, line: str, as_json: bool) -> None:
    if as_json:
        _dump(value)
    else:
        _out(line)


def login(args: argparse.Namespace) -> int:
    base_url = args.base_url or config.load().base_url or input("PrintCloud address (https://...): ")
    if args.api_key_stdin or not sys.stdin.isatty():
        api_key = sys.stdin.readline().strip()
    else:
        api_key = getpass.getpass("API key (not shown): ").strip()
    if not base_url or not api_key:
        raise Usage("an address and a key are needed")
    try:
        with PrintCloud(api_key, base_url=base_url) as client:
            identity = client.whoami()
    except AuthenticationError as error:
        print(f"error: the key was refused ({error.code}, request {error.request_id})", file=sys.stderr)
        return 1
    path = config.save(base_url.rstrip("/"), api_key)
    _out(f"Logged in to {identity.organization.name} ({identity.mode} mode) at {base_url}; saved in {path}")
    return 0


def logout(_: argparse.Namespace) -> int:
    _out("Logged out" if config.forget() else "Not logged in")
    return 0


def whoami(args: argparse.Namespace) -> int:
    with _client() as client:
        identity = client.whoami()
    if args.json:
        _dump(identity.to_json())
    else:
        _out(f"{identity.organization.name} ({identity.organization.id}), {identity.mode} mode, plan {identity.plan}")
    return 0


def printers(args: argparse.Namespace) -> int:
    with _client() as client:
        found = list(client.printers.iterate())
    if args.json:
        for printer in found:
            _dump(printer.to_json())
        return 0
    _out(f"{'ID':36}  {'NAME':24}  {'STATE':7}  {'ENABLED':7}  DISPLAY NAME")
    for printer in found:
        enabled = "yes" if printer.enabled else "no"
        _out(f"{printer.id:36}  {printer.name:24}  {printer.state:7}  {enabled:7}  {printer.display_name}")
    return 0


def _option(text: str) -> tuple[str, Any]:
    """`name=value`; the value read as JSON where it is a number or a boolean, else as text."""
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not name=value")
    try:
        parsed = json.loads(value)
    except ValueError:
        return name, value
    return name, parsed if isinstance(parsed, bool | int | float) else value


def print_file(args: argparse.Namespace) -> int:
    options = dict(args.option or [])
    if args.copies is not None:
        options["copies"] = args.copies
    with _client() as client:
        job = client.print_jobs.print_file(args.file, printer=args.printer, options=options, title=args.title)
        print(f"Job {job.id} {job.state} on {args.printer}", file=sys.stderr, flush=True)
        if not args.wait:
            _out(job.id)
            return 0
        final = client.print_jobs.wait(job.id, timeout=args.timeout)
    if final.state == models.JobState.DONE:
        _out(f"{final.id} done" + (f" ({final.state_message})" if final.state_message else ""))
        return 0
    print(f"error: job {final.id} ended {final.state}: {final.state_message or 'no reason given'}", file=sys.stderr)
    return 1


def _job_line(job: models.PrintJob) -> str:
    return f"{job.created_at:%Y-%m-%d %H:%M:%S}  {job.id}  {job.state:9}  {job.title}"


def jobs(args: argparse.Namespace) -> int:
    with _client() as client:
        printer_id = client.printers.resolve(args.printer) if args.printer else None
        page = client.print_jobs.list(limit=args.limit, state=args.state, printer_id=printer_id)
        for job in reversed(page.data):
            _show(job.to_json(), _job_line(job), args.json)
        if not args.watch:
            return 0

        def wanted(event: AnyEvent) -> bool:
            job = getattr(event, "data", None)
            if not isinstance(job, models.PrintJob):
                return False
            return (printer_id is None or job.printer_id == printer_id) and (args.state in (None, job.state))

        return _follow(client, wanted, lambda event: _job_line(event.data), args.json)


def _follow(client: PrintCloud, wanted: Callable[[AnyEvent], bool], line: Callable[[Any], str], as_json: bool) -> int:
    """Prints each new event `wanted` keeps, from now on, until interrupted."""
    after = client.events.latest_id()
    print("Following new events (Ctrl-C stops)", file=sys.stderr, flush=True)
    for event in client.events.follow(after=after, poll_interval=1.0):
        if wanted(event):
            _show(event.received_json(), line(event), as_json)
    return 0


def _event_line(event: AnyEvent) -> str:
    subject = getattr(event.data, "id", "")
    return f"{event.timestamp:%Y-%m-%d %H:%M:%S}  {event.type:18}  {event.id}  {subject}"


def events_tail(args: argparse.Namespace) -> int:
    types = set(args.type or ())
    with _client() as client:
        return _follow(
            client,
            lambda event: not types or event.type in types,
            _event_line,
            args.json,
        )


def _forward(http: httpx.Client, url: str, secret: str, event: AnyEvent) -> str:
    """Sends `event` as a delivery would: its envelope as the body, signed for this attempt."""
    body = json.dumps(event.received_json(), ensure_ascii=False, separators=(",", ":")).encode()
    for wait in (*FORWARD_WAITS, None):
        headers = {**signed_headers(secret, event.id, body), "user-agent": FORWARD_USER_AGENT}
        try:
            status = http.post(url, content=body, headers=headers).status_code
        except httpx.HTTPError as error:
            outcome = f"failed: {error!r}"
        else:
            if 200 <= status < 300:
                return str(status)
            outcome = f"failed: {status}"
        if wait is None:
            return outcome
        time.sleep(wait)
    return outcome


def webhooks_listen(args: argparse.Namespace) -> int:
    secret = args.secret or new_secret()
    types = set(args.type or ())
    with _client() as client, httpx.Client(timeout=FORWARD_TIMEOUT_SECONDS) as http:
        after = client.events.latest_id()
        _out(f"Forwarding new events to {args.forward_to}")
        _out(f"Signing secret (verify with it in your receiver): {secret}")
        for event in client.events.follow(after=after, poll_interval=args.poll_interval):
            if types and event.type not in types:
                continue
            _out(f"{event.type:18}  {event.id}  -> {_forward(http, args.forward_to, secret, event)}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pcloud", description="The PrintCloud API from a terminal.")
    commands = parser.add_subparsers(dest="command", required=True)

    command = commands.add_parser("login", help="save the address and an API key (asked without echo)")
    command.add_argument("--base-url", help="the PrintCloud address, such as https://print.example.com")
    command.add_argument("--api-key-stdin", action="store_true", help="read the key from standard input")
    command.set_defaults(run=login)

    commands.add_parser("logout", help="forget the saved key").set_defaults(run=logout)

    command = commands.add_parser("whoami", help="the key's organization and mode")
    command.add_argument("--json", action="store_true")
    command.set_defaults(run=whoami)

    command = commands.add_parser("printers", help="list the printers")
    command.add_argument("--json", action="store_true", help="one JSON object a line")
    command.set_defaults(run=printers)

    command = commands.add_parser("print", help="print a file (a PDF, or raw printer data)")
    command.add_argument("file")
    command.add_argument("--printer", required=True, help="a printer's id or name")
    command.add_argument("--option", action="append", type=_option, metavar="NAME=VALUE", help="a print option")
    command.add_argument("--copies", type=int)
    command.add_argument("--title", help="default: the file's name")
    command.add_argument("--wait", action="store_true", help="wait for the end; exit 0 only when done")
    command.add_argument("--timeout", type=float, default=None, help="seconds to wait at most")
    command.set_defaults(run=print_file)

    command = commands.add_parser("jobs", help="list print jobs, newest last")
    command.add_argument("--state", choices=[state.value for state in models.JobState])
    command.add_argument("--printer", help="a printer's id or name")
    command.add_argument("--limit", type=int, default=20)
    command.add_argument("--watch", action="store_true", help="then show each change as it happens")
    command.add_argument("--json", action="store_true")
    command.set_defaults(run=jobs)

    events = commands.add_parser("events", help="the event feed").add_subparsers(dest="events", required=True)
    command = events.add_parser("tail", help="show each new event")
    command.add_argument("--type", action="append", help="only this event type (repeatable)")
    command.add_argument("--json", action="store_true", help="each event as the API sends it")
    command.set_defaults(run=events_tail)

    webhooks = commands.add_parser("webhooks", help="webhook tools").add_subparsers(dest="webhooks", required=True)
    command = webhooks.add_parser(
        "listen", help="deliver each new event, signed, to a local receiver (no public address needed)"
    )
    command.add_argument("--forward-to", required=True, help="your receiver, such as http://localhost:8000/webhooks")
    command.add_argument("--type", action="append", help="only this event type (repeatable)")
    command.add_argument("--secret", help="sign with this whsec_ secret rather than a new one")
    command.add_argument("--poll-interval", type=float, default=1.0, help=argparse.SUPPRESS)
    command.set_defaults(run=webhooks_listen)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except Usage as error:
        print(f"pcloud: {error}", file=sys.stderr)
        return 2
    except ApiError as error:
        print(f"error: {error.code}: {error.message} (request {error.request_id})", file=sys.stderr)
        return 1
    except (PrintCloudError, TimeoutError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
