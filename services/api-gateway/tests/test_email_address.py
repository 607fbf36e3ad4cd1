"""The one rule for an e-mail address (sign-in, sign-up, invitations, the CLI's owner): one plain
mailbox, lower-cased as addresses always were."""

from __future__ import annotations

import pytest

from printcloud.api_gateway.domain.email_address import ONE_PLAIN_MAILBOX, mailbox
from printcloud.api_gateway.domain.public_url import public_base_url

DOMAIN_RULE = "The part after the @ must be a domain name, such as example.com."


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("alice@example.com", "alice@example.com"),
        ("  Alice.B+Print@Example.COM\t", "alice.b+print@example.com"),
        ("o'brien@sub.example.co.uk", "o'brien@sub.example.co.uk"),
        ("a_b-c=d?e^f`g{h|i}j~k#l$m&n*o/p@x-y.test", "a_b-c=d?e^f`g{h|i}j~k#l$m&n*o/p@x-y.test"),
        ("user@xn--bcher-kva.example", "user@xn--bcher-kva.example"),
        ("x" * 64 + "@" + "d" * 63 + ".example", "x" * 64 + "@" + "d" * 63 + ".example"),
    ],
)
def test_a_plain_mailbox_is_taken_lower_cased(typed: str, kept: str) -> None:
    assert mailbox(typed) == kept


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("Name <other@example.com>", ONE_PLAIN_MAILBOX),  # a display name: the mail goes to other@
        ("Name<other@example.com>", ONE_PLAIN_MAILBOX),
        ("<other@example.com>", ONE_PLAIN_MAILBOX),
        ("a,b@example.com", ONE_PLAIN_MAILBOX),  # a list: one message, two recipients
        ("a@example.com, b@example.com", ONE_PLAIN_MAILBOX),
        ("a@example.com;b@example.com", ONE_PLAIN_MAILBOX),
        ('"<svg/onload=alert(1)>"@example.com', ONE_PLAIN_MAILBOX),  # a quoted local part
        ('"a"@example.com', ONE_PLAIN_MAILBOX),
        ("a(comment)@example.com", ONE_PLAIN_MAILBOX),
        ("a@example.com(comment)", DOMAIN_RULE),
        ("a b@example.com", ONE_PLAIN_MAILBOX),
        ("a@example.com\r\nBcc: b@example.com", ONE_PLAIN_MAILBOX),  # a header of its own
        ("a\x00@example.com", ONE_PLAIN_MAILBOX),
        ("a\x7f@example.com", ONE_PLAIN_MAILBOX),
        ("jörg@example.com", ONE_PLAIN_MAILBOX),
        ("a\\b@example.com", ONE_PLAIN_MAILBOX),
        ("a%b@example.com", ONE_PLAIN_MAILBOX),  # routed by some relays to the host after the %
        ("a!b@example.com", ONE_PLAIN_MAILBOX),
        ("a@b@example.com", ONE_PLAIN_MAILBOX),
        ("example.com", ONE_PLAIN_MAILBOX),
        (".a@example.com", ONE_PLAIN_MAILBOX),
        ("a.@example.com", ONE_PLAIN_MAILBOX),
        ("a..b@example.com", ONE_PLAIN_MAILBOX),
        ("@example.com", ONE_PLAIN_MAILBOX),
        ("a@localhost", DOMAIN_RULE),
        ("a@[127.0.0.1]", DOMAIN_RULE),
        ("a@127.0.0.1", DOMAIN_RULE),
        ("a@-example.com", DOMAIN_RULE),
        ("a@example..com", DOMAIN_RULE),
        ("a@example.com.", DOMAIN_RULE),
        ("a@exa_mple.com", DOMAIN_RULE),
        ("a@bücher.example", ONE_PLAIN_MAILBOX),
        ("a@" + "d" * 64 + ".example", DOMAIN_RULE),
        ("", "Enter an e-mail address."),
        ("   ", "Enter an e-mail address."),
        ("x" * 65 + "@example.com", "The part before the @ has at most 64 characters."),
        ("a@" + ".".join(["d" * 60] * 5) + ".example", "An e-mail address has at most 254 characters."),
    ],
)
def test_anything_but_one_plain_mailbox_is_refused_saying_why(typed: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        mailbox(typed)
    assert str(refused.value) == why


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("https://print.example.com", "https://print.example.com"),
        ("https://print.example.com/", "https://print.example.com"),
        (" http://127.0.0.1:8080 ", "http://127.0.0.1:8080"),
        ("https://example.com/printcloud/", "https://example.com/printcloud"),
    ],
)
def test_the_public_url_is_kept_without_its_trailing_slash(given: str, kept: str) -> None:
    assert public_base_url(given) == kept


@pytest.mark.parametrize(
    "given",
    [
        "print.example.com",
        "ftp://print.example.com",
        "https://",
        "https://user:pass@print.example.com",
        "https://print.example.com/?next=x",
        "https://print.example.com/#x",
        "https://print.example.com:99999",
    ],
)
def test_a_public_url_that_is_not_a_plain_http_base_is_refused(given: str) -> None:
    with pytest.raises(ValueError):
        public_base_url(given)
