"""Property: no JSON body, header or option combination makes job creation answer 5xx or
anything but a job (201) or the error envelope."""

from __future__ import annotations

import json
import string
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.e2e.client import PDF_BASE64
from tests.e2e.print_jobs.conftest import Org

OPTION_NAMES = ["copies", "paper", "duplex", "color", "dpi", "bin", "media", "collate", "fit_to_page", "rotate",
                "pages", "nup", "staple"]  # fmt: skip
FIELDS = ["printerId", "title", "contentType", "content", "source", "qty", "expireAfter", "options",
          "authentication", "reprintOf", "unknown"]  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
option_objects = st.dictionaries(st.sampled_from(OPTION_NAMES), json_values | st.integers(0, 1000), max_size=5)


def field_values(org: Org) -> st.SearchStrategy[Any]:
    printer_ids = st.sampled_from([p["id"] for p in org.printers.values()] + ["0190a0a0-0000-7000-8000-000000000000"])
    return st.one_of(
        json_values,
        printer_ids,
        st.sampled_from(["pdf_base64", "raw_base64", "pdf_uri", "raw_uri", PDF_BASE64, "http://127.0.0.2/x"]),
        option_objects,
        st.fixed_dictionaries(
            {"type": st.just("BasicAuth"), "credentials": st.dictionaries(st.text(max_size=5), json_values)}
        ),
    )


# What a header can carry on the wire: HTTP forbids line breaks, and surrounding blanks are not
# part of a field value (clients refuse to send them), so they are left out.
header_text = st.text(alphabet=string.printable.strip("\r\n\x0b\x0c"), max_size=300).map(lambda s: s.strip(" \t"))


def _assert_shape(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    body = response.json()
    if response.status_code == 201:
        assert body["state"] in ("queued", "error") and body["id"]
        return
    assert set(body) == {"error"}, body
    assert set(body["error"]) >= {"code", "message", "request_id"}
    assert body["error"]["request_id"] == response.headers["x-request-id"]


def test_no_body_header_or_options_make_creation_fail_or_leave_the_envelope(org: Org) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        body=st.dictionaries(st.sampled_from(FIELDS), field_values(org), max_size=9),
        idempotency_key=st.none() | header_text,
        content_type=st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain"]),
    )
    def creation(body: dict[str, Any], idempotency_key: str | None, content_type: str) -> None:
        headers = {"Content-Type": content_type}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        response = org.client.post("/v1/printjobs", content=json.dumps(body), headers=headers)
        _assert_shape(response)

    creation()


def test_bodies_that_are_not_json_objects_answer_the_envelope(org: Org) -> None:
    @settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
    @given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
    def creation(raw: bytes) -> None:
        _assert_shape(org.client.post("/v1/printjobs", content=raw, headers={"Content-Type": "application/json"}))

    creation()
