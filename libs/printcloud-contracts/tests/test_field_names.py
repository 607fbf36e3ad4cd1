from __future__ import annotations

import pytest

from printcloud.contracts.events import FieldChange
from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import Printer


def test_a_field_is_named_as_the_model_names_it_in_json() -> None:
    assert public_name(Printer, lambda printer: printer.displayName) == "displayName"
    assert public_name(FieldChange, lambda change: change.from_) == "from"


def test_a_read_of_no_field_is_refused() -> None:
    with pytest.raises(LookupError, match="Printer has no field 'model_fields'"):
        public_name(Printer, lambda printer: printer.model_fields)
    with pytest.raises(LookupError, match="Printer has no field 2"):
        public_name(Printer, lambda printer: 2)
