"""The probe that found secrets in the logs, rerun: each secret-bearing field sent with a NUL byte
(and, for the content URL, with a token in its query), then every process's log read for it."""

from __future__ import annotations

import httpx

from tests.e2e.client import PDF_BASE64, assert_error, eventually
from tests.e2e.stacks import LogFile

PASSWORD = "content-url-password-6f1d"
TOKEN = "content-url-token-93ab"
WEBHOOK_DESCRIPTION_SECRET = "description-secret-52c0"


def test_secret_bearing_fields_with_a_nul_byte_leave_no_secret_in_any_log(
    client: httpx.Client, virtual_printers: dict, service_logs: LogFile
) -> None:
    printer_id = virtual_printers["virtual-office"]["id"]
    attempts = [
        client.post(
            "/v1/printjobs",
            json={
                "printerId": printer_id,
                "title": "secret",
                "contentType": "pdf_uri",
                "content": f"https://files.example.com/doc.pdf?token={TOKEN}",
                "authentication": {"type": "BasicAuth", "credentials": {"user": "u\u0000", "pass": PASSWORD}},
            },
        ),
        client.post(
            "/v1/printjobs",
            json={
                "printerId": printer_id,
                "title": f"t\u0000{PASSWORD}",
                "contentType": "pdf_base64",
                "content": PDF_BASE64,
            },
        ),
        client.post(
            "/v1/webhooks",
            json={
                "url": f"https://hooks.example.com/in?token={TOKEN}",
                "description": f"\u0000{WEBHOOK_DESCRIPTION_SECRET}",
            },
        ),
    ]
    for response in attempts:
        assert_error(response, 400, "invalid_request")
    # A request the gateway serves afterwards is logged by every hop: when its lines are in, the
    # lines the refused requests could have produced are in too.
    marker = client.get("/v1/printers", headers={"X-Request-Id": "after-the-secrets"})
    assert marker.status_code == 200

    def logs_with_marker() -> str | None:
        logged = service_logs.path.read_text()
        return logged if "after-the-secrets" in logged else None

    text = eventually(logs_with_marker, what="the marker request in the logs")
    for secret in (PASSWORD, TOKEN, WEBHOOK_DESCRIPTION_SECRET):
        assert secret not in text, f"{secret} reached a log"
