"""The tenant a query or change belongs to. Every tenant row carries both fields and every
repository query filters on both; servicers build a `Scope` from the request's proto `Scope` with
`scope_from_proto`, the one place that checks it, and callers build the proto with `scope_to_proto`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from printcloud.contracts.errors import invalid
from printcloud.core.ids import parse_uuid
from printcloud.v1 import common_pb2

MODES = ("live", "test")


@dataclass(frozen=True)
class Scope:
    organization_id: uuid.UUID
    mode: str


def parse_scope(organization_id: str, mode: str) -> Scope:
    """A caller always sends a scope; a malformed one is a bug in the caller, hence 400."""
    parsed = parse_uuid(organization_id)
    if parsed is None:
        raise invalid("The scope's organization id must be a UUID.")
    if mode not in MODES:
        raise invalid("The scope's mode must be `live` or `test`.")
    return Scope(parsed, mode)


def scope_from_proto(scope: common_pb2.Scope) -> Scope:
    return parse_scope(scope.organization_id, scope.mode)


def scope_to_proto(scope: Scope) -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(scope.organization_id), mode=scope.mode)
