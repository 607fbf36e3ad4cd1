"""The PrintCloud API from Python: `PrintCloud` (and `AsyncPrintCloud`), typed models, typed
errors, webhook verification. See docs/clients.md.

    from printcloud_sdk import PrintCloud

    with PrintCloud() as client:  # PRINTCLOUD_BASE_URL and PRINTCLOUD_API_KEY
        job = client.print_jobs.print_file("invoice.pdf", printer="virtual-office")
        print(client.print_jobs.wait(job.id).state)
"""

from importlib.metadata import version

from printcloud_sdk import models
from printcloud_sdk._async_client import AsyncEventFollower, AsyncPrintCloud
from printcloud_sdk._request import NOT_GIVEN, TERMINAL_JOB_STATES
from printcloud_sdk._sync_client import EventFollower, PrintCloud
from printcloud_sdk.errors import (
    ApiConnectionError,
    ApiError,
    AuthenticationError,
    ConflictError,
    ContentTooLargeError,
    GoneError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    PrintCloudError,
    PrinterLookupError,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    UnprocessableError,
    WebhookVerificationError,
)
from printcloud_sdk.events import UnknownEvent, parse_event
from printcloud_sdk.retries import RetryPolicy
from printcloud_sdk.webhooks import verify_webhook

__version__ = version("printcloud-sdk")

__all__ = [
    "NOT_GIVEN",
    "TERMINAL_JOB_STATES",
    "ApiConnectionError",
    "ApiError",
    "AsyncEventFollower",
    "AsyncPrintCloud",
    "AuthenticationError",
    "ConflictError",
    "ContentTooLargeError",
    "EventFollower",
    "GoneError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "PrintCloud",
    "PrintCloudError",
    "PrinterLookupError",
    "QuotaExceededError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "UnknownEvent",
    "UnprocessableError",
    "WebhookVerificationError",
    "models",
    "parse_event",
    "verify_webhook",
]
