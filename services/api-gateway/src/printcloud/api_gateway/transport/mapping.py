"""Small translations between HTTP values and the gRPC messages the services speak."""

from __future__ import annotations

from starlette.responses import Response

from printcloud.api_gateway.domain.identity import Identity
from printcloud.api_gateway.transport.schemas import PagingQuery
from printcloud.contracts.errors import not_found
from printcloud.core.db.paging import PageRequest
from printcloud.core.ids import parse_uuid
from printcloud.v1 import common_pb2

JSON = "application/json"


def scope_of(identity: Identity) -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=identity.organization_id, mode=identity.mode)


def page_request(query: PagingQuery) -> common_pb2.PageRequest:
    page = PageRequest.parse(query.limit, query.after, query.dir)
    return common_pb2.PageRequest(**page.to_proto_fields())


def path_id(value: str, what: str) -> str:
    """A path id in canonical form. Anything that is not a UUID names no resource, hence 404."""
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return str(parsed)


def forwarded(shown: common_pb2.Representation) -> Response:
    """A representation the owning service rendered, sent as it came: the gateway neither reads nor
    re-encodes it."""
    return Response(shown.json, media_type=JSON)
