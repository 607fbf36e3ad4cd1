"""The pairing-code rules alone: format, normalisation, terms, states and the attempt limits."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.devices.domain.pairing_attempts import AttemptLimits, RecentFailures, attempt_subjects
from printcloud.devices.domain.pairing_codes import (
    ACTIVE,
    ALPHABET,
    EXPIRED,
    MAX_USES,
    REVOKED,
    USED_UP,
    checked_terms,
    code_state,
    hint_of,
    lookup_key,
    mint_pairing_code,
    pairing_key,
)

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
KEY = pairing_key("x" * 40)


def test_a_code_is_three_groups_of_an_unambiguous_alphabet_and_only_its_keyed_hash_is_kept() -> None:
    codes = [mint_pairing_code(KEY) for _ in range(200)]
    for new in codes:
        assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", new.code)
        assert new.hint == new.code[:4]
        assert new.code not in new.lookup_key and len(new.lookup_key) == 64
        assert new.lookup_key == lookup_key(KEY, new.code)
    assert len({new.code for new in codes}) == len(codes)
    assert not set("ILOU") & set(ALPHABET) and len(ALPHABET) == 32


def test_typing_slips_find_the_same_code_and_another_server_secret_does_not() -> None:
    key = lookup_key(KEY, "7K4M-9QXP-3T0D")
    assert lookup_key(KEY, "7k4m 9qxp 3tod") == key  # case, spaces, and the letter O for zero
    assert lookup_key(KEY, "7K4M9QXP3T0D") == key
    assert lookup_key(KEY, "7K4M-9QXP-3T1D") != key
    assert lookup_key(KEY, "7K4M-9QXP-3TID") == lookup_key(KEY, "7K4M-9QXP-3TLD") == lookup_key(KEY, "7K4M9QXP3T1D")
    assert lookup_key(pairing_key("y" * 40), "7K4M-9QXP-3T0D") != key
    assert hint_of("7k4m-9qxp-3tod") == "7K4M"


def test_terms_default_to_one_use_for_a_day_and_refuse_what_is_out_of_bounds() -> None:
    terms = checked_terms(NOW, None, None, "  Shops, wave 1 ")
    assert (terms.expires_at, terms.max_uses, terms.description) == (NOW + timedelta(hours=24), 1, "Shops, wave 1")
    assert checked_terms(NOW, 7 * 86400, MAX_USES, "").expires_at == NOW + timedelta(days=7)
    out_of_bounds = [(59, 1, ""), (7 * 86400 + 1, 1, ""), (None, 0, ""), (None, 1001, ""), (None, 1, "d" * 201)]
    for seconds, uses, description in out_of_bounds:
        with pytest.raises(ApiError) as refused:
            checked_terms(NOW, seconds, uses, description)
        assert refused.value.code == "invalid_request"


def test_state_of_a_code() -> None:
    later = NOW + timedelta(hours=1)
    assert code_state(revoked=False, uses=0, max_uses=2, expires_at=later, now=NOW) == ACTIVE
    assert code_state(revoked=False, uses=2, max_uses=2, expires_at=later, now=NOW) == USED_UP
    assert code_state(revoked=False, uses=1, max_uses=2, expires_at=NOW, now=NOW) == EXPIRED
    assert code_state(revoked=True, uses=2, max_uses=2, expires_at=NOW, now=NOW) == REVOKED


def test_limits_refuse_an_address_or_a_prefix_past_its_failures_until_the_oldest_leaves_the_window() -> None:
    limits = AttemptLimits(per_address=3, per_prefix=5, window=timedelta(minutes=15))
    none = RecentFailures(0, None)
    assert limits.refusal(NOW, RecentFailures(2, NOW), RecentFailures(4, NOW)) is None
    by_address = limits.refusal(NOW, RecentFailures(3, NOW - timedelta(minutes=10)), none)
    assert by_address is not None and by_address.code == "rate_limited"
    assert by_address.details == {"retry_after": 300} and "this address" in by_address.message
    by_prefix = limits.refusal(NOW, none, RecentFailures(5, NOW - timedelta(seconds=899.5)))
    assert by_prefix is not None and by_prefix.details == {"retry_after": 1}
    subjects = attempt_subjects("203.0.113.9", "abcd-efgh")
    assert (subjects.address, subjects.prefix) == ("address:203.0.113.9", "prefix:ABCD")
