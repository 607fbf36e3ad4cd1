import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope, scope_from_proto, scope_to_proto
from printcloud.v1 import common_pb2


def test_a_well_formed_scope_is_read() -> None:
    organization = uuid7()
    proto = common_pb2.Scope(organization_id=str(organization), mode="test")
    assert scope_from_proto(proto) == Scope(organization, "test")


@pytest.mark.parametrize(
    ("organization_id", "mode"), [("not-a-uuid", "live"), (str(uuid7()), "staging"), (str(uuid7()), "")]
)
def test_a_malformed_scope_is_an_invalid_request(organization_id: str, mode: str) -> None:
    with pytest.raises(ApiError) as raised:
        scope_from_proto(common_pb2.Scope(organization_id=organization_id, mode=mode))
    assert raised.value.code == "invalid_request"


def test_a_scope_round_trips_through_its_proto() -> None:
    scope = Scope(uuid7(), "live")
    assert scope_from_proto(scope_to_proto(scope)) == scope
