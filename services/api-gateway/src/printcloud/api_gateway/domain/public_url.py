"""The gateway's public base URL (`PRINTCLOUD_PUBLIC_URL`): what absolute URLs are built from."""

from __future__ import annotations

from urllib.parse import urlsplit


def public_base_url(value: str) -> str:
    """`value` without a trailing slash, once it is an http(s) URL naming a host and, at most, a
    path prefix; a ValueError otherwise."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http or https URL naming a host, such as https://print.example.com")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise ValueError("must hold no user name, password, query or fragment")
    parts.port  # noqa: B018 - raises the ValueError of a port that is not a number from 0 to 65535
    return parts.geturl().rstrip("/")
