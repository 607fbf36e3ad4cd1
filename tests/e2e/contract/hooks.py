"""Schemathesis hooks of the contract run (loaded by `st` through `SCHEMATHESIS_HOOKS`).

Two kinds of rule, both kept in this one place:
- No traffic leaves the machine: every URL a case sends is pointed at a loopback server of the
  test, whose network the stack allowlists: a job's content at a PDF it serves, a webhook endpoint
  at its receiver (path kept).
- A pairing code is a secret no schema can know: every code a case sends is replaced by a real one,
  made by the test in an organization of its own (so no case can revoke it).
- Rules JSON Schema cannot state are kept out of generated valid data: a page range that ends
  before it starts, and two custom papers with the same name. Only those values are changed, and
  into values the document allows too, so the request stays what the document calls valid.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

import schemathesis

from printcloud.contracts.requests import HTTP_URL

# Set by the test: the document every content URL fetches, and the receiver's origin for webhooks.
CONTENT_URL = "PRINTCLOUD_CONTRACT_CONTENT_URL"
WEBHOOK_URL = "PRINTCLOUD_CONTRACT_WEBHOOK_ORIGIN"
PAIRING_CODE = "PRINTCLOUD_CONTRACT_PAIRING_CODE"
_URL = re.compile(HTTP_URL)
MAX_URL_LENGTH = 2048
MAX_PAPER_NAME_LENGTH = 255
_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)")


def _to_loopback(value: Any, target: str, *, keep_path: bool) -> Any:
    """`target` for a URL the document allows; anything else is left to be refused as it is."""
    if not isinstance(value, str) or len(value) > MAX_URL_LENGTH or not _URL.fullmatch(value):
        return value
    return target + (urlsplit(value).path if keep_path else "")


def _ascending(pages: Any) -> Any:
    if not isinstance(pages, str):
        return pages
    return _RANGE.sub(lambda m: "-".join(sorted((m[1], m[2]), key=int)), pages)


def _unique_names(papers: Any) -> Any:
    if not isinstance(papers, list):
        return papers
    seen: set[str] = set()
    for index, paper in enumerate(papers):
        if isinstance(paper, dict) and isinstance(paper.get("name"), str):
            # A name already too long is what makes the case invalid: it stays so.
            if paper["name"] in seen and len(paper["name"]) <= MAX_PAPER_NAME_LENGTH:
                paper["name"] = f"{index}-{paper['name']}"[:MAX_PAPER_NAME_LENGTH]
            seen.add(paper["name"])
    return papers


def _fix_options(options: Any) -> None:
    if isinstance(options, dict) and "pages" in options:
        options["pages"] = _ascending(options["pages"])


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    body = case.body
    if not isinstance(body, dict):
        return
    path = case.operation.path
    if path == "/v1/printjobs" and body.get("contentType") in ("pdf_uri", "raw_uri"):
        body["content"] = _to_loopback(body.get("content"), os.environ[CONTENT_URL], keep_path=False)
    if path == "/v1/agent/pair" and isinstance(body.get("code"), str):
        body["code"] = os.environ[PAIRING_CODE]
    if path.startswith("/v1/webhooks") and "url" in body:
        body["url"] = _to_loopback(body["url"], os.environ[WEBHOOK_URL], keep_path=True)
    _fix_options(body.get("options"))
    _fix_options(body.get("defaultOptions"))
    if "customPapers" in body:
        body["customPapers"] = _unique_names(body["customPapers"])
