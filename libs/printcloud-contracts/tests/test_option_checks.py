from __future__ import annotations

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.contracts.option_checks import validate_options


def test_known_options_in_range_pass() -> None:
    options = {"copies": 2, "duplex": "long-edge", "color": False, "pages": "1-3,5", "nup": 4, "paper": "A4"}
    assert validate_options(options, "defaultOptions") == options


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ([], "`defaultOptions` must be an object"),
        ({"staple": True}, "Unknown print option `staple` in `defaultOptions`"),
        ({"copies": 0}, "`defaultOptions.copies` must be an integer from 1 to 999"),
        ({"copies": True}, "`defaultOptions.copies`"),
        ({"rotate": 45}, "`defaultOptions.rotate`"),
        ({"pages": "3-1"}, "`defaultOptions.pages`"),
    ],
)
def test_invalid_options_name_the_field(options: object, fragment: str) -> None:
    with pytest.raises(ApiError) as raised:
        validate_options(options, "defaultOptions")
    assert raised.value.code == "invalid_request"
    assert fragment in raised.value.message
