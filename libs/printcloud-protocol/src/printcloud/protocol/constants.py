"""The names and numbers of protocol v1: its version, paths, close codes, message types and job states."""

from __future__ import annotations

from typing import Final

PROTOCOL_VERSION = 1
SUBPROTOCOL = "printcloud.agent.v1"
WS_PATH = "/agent/v1/ws"
ENROLL_PATH = "/v1/agent/enroll"
# Enrolment with a pairing code instead of an API key.
PAIR_PATH = "/v1/agent/pair"

# Close codes a gateway sends; 4400-4499 mirror the HTTP status they resemble.
CLOSE_PROTOCOL_ERROR = 4400
CLOSE_BAD_CREDENTIAL = 4401
CLOSE_COMPUTER_DISABLED = 4403
CLOSE_REPLACED = 4409
CLOSE_TOO_MANY_MESSAGES = 4429

# Message types.
HELLO: Final = "hello"
WELCOME: Final = "welcome"
JOB: Final = "job"
JOB_STATE: Final = "job.state"
JOB_STATE_RECORDED: Final = "job.state.recorded"
JOB_CANCEL: Final = "job.cancel"
PRINTERS: Final = "printers"

# Job states an agent reports.
RECEIVED = "received"
PRINTING = "printing"
DONE = "done"
ERROR = "error"

REPORTABLE_STATES = frozenset({RECEIVED, PRINTING, DONE, ERROR})
TERMINAL_STATES = frozenset({DONE, ERROR})
# Of a `job.state` message, the service keeps this much.
MAX_STATE_MESSAGE_CHARS = 2000
# A job's file up to this size goes inside its `job` message (`content`, base64).
MAX_INLINE_FILE_BYTES = 64 * 1024


def states_reaching(state: str) -> list[str]:
    """The job states an agent reports on the way to `state`, in order.

    Re-reporting the whole way after a reconnect lets a service that missed the middle (it was
    down when `received` or `printing` went out) still accept the end; states it already has are
    answered as repeats or stale reports and change nothing. `error` may follow `received`
    directly, so it is not preceded by `printing`.
    """
    if state == DONE:
        return [RECEIVED, PRINTING, DONE]
    if state == PRINTING:
        return [RECEIVED, PRINTING]
    if state == ERROR:
        return [RECEIVED, ERROR]
    return [state]


def websocket_url(gateway_url: str) -> str:
    """The WebSocket address for an agent-gateway base URL given as http(s) or ws(s)."""
    base = gateway_url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base.removeprefix("https://")
    elif base.startswith("http://"):
        base = "ws://" + base.removeprefix("http://")
    return base + WS_PATH
