"""E-mailed one-time sign-in codes: how they are made, stored and checked (docs/api.md, "Sign-in")."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

CODE_DIGITS = 6
MAX_WRONG_TRIES = 5
SIGNUP_POLICIES: tuple[str, ...] = ("open", "closed")


@dataclass(frozen=True)
class NewCode:
    """`code` goes into the e-mail; only `code_hash` is stored."""

    code: str
    code_hash: str


def mint_code(email: str) -> NewCode:
    code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    return NewCode(code, hash_code(email, code))


def hash_code(email: str, code: str) -> str:
    # Bound to the address, so a code only ever works for the address it was sent to.
    return hashlib.sha256(f"{email}\n{code}".encode()).hexdigest()


def code_matches(stored_hash: str, email: str, presented: str) -> bool:
    candidate = presented.strip().replace(" ", "").replace("-", "")
    return hmac.compare_digest(stored_hash, hash_code(email, candidate))


def may_get_code(*, has_account: bool, invited: bool, signup: str) -> bool:
    """Whether a code is actually sent; the caller's answer is the same either way."""
    return has_account or invited or signup == "open"


def sign_in_email(code: str, minutes: int, sign_in_url: str) -> tuple[str, str]:
    """(subject, body) of the code e-mail. It names the sign-in page, so that the reader can tell
    which server sent it, and enter the code there only."""
    subject = f"Your PrintCloud sign-in code: {code}"
    body = (
        f"Your PrintCloud sign-in code is {code}.\n\n"
        f"Enter it on the sign-in page, {sign_in_url}, and nowhere else.\n"
        f"It works once, for {minutes} minutes. If you did not ask for it, ignore this e-mail:\n"
        "nobody can sign in without the code.\n"
    )
    return subject, body
