"""The e-mail address a person signs in with, is invited at, or owns an organization by: one plain
mailbox, `local@domain.example`, and nothing an e-mail library reads as more.

An address ends up in a message's `To` header and in the SMTP envelope, where a library parses it
again: `Name <other@example.com>` is a message to `other@example.com`, `a,b@example.com` a message
to two recipients, and a quoted local part can hold anything (markup included). So an address is
refused unless it is a bare mailbox: a dot-atom local part of at most 64 characters, an `@`, and a
domain name of at least two labels, 254 characters in all (RFC 5321), printable ASCII only.
`%` and `!` are refused too: some relays still route on them (`user%host@relay`), which would send
the message to another host than the one named. Addresses with non-ASCII local parts (SMTPUTF8) are
not taken; domains are taken in their ASCII (`xn--`) form.

Addresses are lower-cased, as they always were: one user per mailbox however it was typed, and the
addresses already stored keep matching.
"""

from __future__ import annotations

import re

MAX_ADDRESS_CHARACTERS = 254
MAX_LOCAL_PART_CHARACTERS = 64
# RFC 5322 atext, without the routing characters `%` and `!`.
_ATOM = re.compile(r"[a-z0-9#$&'*+/=?^_`{|}~-]+")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_PRINTABLE_ASCII = re.compile(r"[!-~]+")

ONE_PLAIN_MAILBOX = (
    "Enter one plain e-mail address, such as name@example.com, without a name, angle brackets, quotes, "
    "comments, spaces or commas."
)


def mailbox(text: str) -> str:
    """`text` as the one mailbox it names, lower-cased; a ValueError that says why otherwise."""
    address = text.strip().lower()
    if not address:
        raise ValueError("Enter an e-mail address.")
    if len(address) > MAX_ADDRESS_CHARACTERS:
        raise ValueError(f"An e-mail address has at most {MAX_ADDRESS_CHARACTERS} characters.")
    if not _PRINTABLE_ASCII.fullmatch(address) or address.count("@") != 1:
        raise ValueError(ONE_PLAIN_MAILBOX)
    local, _, domain = address.partition("@")
    if len(local) > MAX_LOCAL_PART_CHARACTERS:
        raise ValueError(f"The part before the @ has at most {MAX_LOCAL_PART_CHARACTERS} characters.")
    if not all(_ATOM.fullmatch(atom) for atom in local.split(".")):
        raise ValueError(ONE_PLAIN_MAILBOX)
    labels = domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        raise ValueError("The part after the @ must be a domain name, such as example.com.")
    return address
