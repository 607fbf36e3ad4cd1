from printcloud.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WebhookEndpoint(_message.Message):
    __slots__ = ("id", "url", "description", "events", "enabled", "disabled_reason", "mode", "created_at", "updated_at", "secret")
    ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    DISABLED_REASON_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    id: str
    url: str
    description: str
    events: _containers.RepeatedScalarFieldContainer[str]
    enabled: bool
    disabled_reason: str
    mode: str
    created_at: str
    updated_at: str
    secret: str
    def __init__(self, id: _Optional[str] = ..., url: _Optional[str] = ..., description: _Optional[str] = ..., events: _Optional[_Iterable[str]] = ..., enabled: _Optional[bool] = ..., disabled_reason: _Optional[str] = ..., mode: _Optional[str] = ..., created_at: _Optional[str] = ..., updated_at: _Optional[str] = ..., secret: _Optional[str] = ...) -> None: ...

class CreateEndpointRequest(_message.Message):
    __slots__ = ("scope", "url", "description", "events")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    url: str
    description: str
    events: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., url: _Optional[str] = ..., description: _Optional[str] = ..., events: _Optional[_Iterable[str]] = ...) -> None: ...

class EndpointRef(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class ListEndpointsRequest(_message.Message):
    __slots__ = ("scope", "page")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    page: _common_pb2.PageRequest
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ...) -> None: ...

class WebhookEndpointPage(_message.Message):
    __slots__ = ("items", "page")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[WebhookEndpoint]
    page: _common_pb2.PageInfo
    def __init__(self, items: _Optional[_Iterable[_Union[WebhookEndpoint, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PageInfo, _Mapping]] = ...) -> None: ...

class UpdateEndpointRequest(_message.Message):
    __slots__ = ("scope", "id", "url", "description", "set_events", "events", "enabled")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SET_EVENTS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    url: str
    description: str
    set_events: bool
    events: _containers.RepeatedScalarFieldContainer[str]
    enabled: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., url: _Optional[str] = ..., description: _Optional[str] = ..., set_events: _Optional[bool] = ..., events: _Optional[_Iterable[str]] = ..., enabled: _Optional[bool] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("id", "endpoint_id", "event_id", "event_type", "payload_json", "attempt", "status", "response_code", "response_body_excerpt", "next_attempt_at", "delivered_at", "created_at", "attempts")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_CODE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_BODY_EXCERPT_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    endpoint_id: str
    event_id: str
    event_type: str
    payload_json: str
    attempt: int
    status: str
    response_code: int
    response_body_excerpt: str
    next_attempt_at: str
    delivered_at: str
    created_at: str
    attempts: _containers.RepeatedCompositeFieldContainer[DeliveryAttempt]
    def __init__(self, id: _Optional[str] = ..., endpoint_id: _Optional[str] = ..., event_id: _Optional[str] = ..., event_type: _Optional[str] = ..., payload_json: _Optional[str] = ..., attempt: _Optional[int] = ..., status: _Optional[str] = ..., response_code: _Optional[int] = ..., response_body_excerpt: _Optional[str] = ..., next_attempt_at: _Optional[str] = ..., delivered_at: _Optional[str] = ..., created_at: _Optional[str] = ..., attempts: _Optional[_Iterable[_Union[DeliveryAttempt, _Mapping]]] = ...) -> None: ...

class DeliveryAttempt(_message.Message):
    __slots__ = ("attempt", "sent_at", "response_code", "response_body_excerpt")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_CODE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_BODY_EXCERPT_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    sent_at: str
    response_code: int
    response_body_excerpt: str
    def __init__(self, attempt: _Optional[int] = ..., sent_at: _Optional[str] = ..., response_code: _Optional[int] = ..., response_body_excerpt: _Optional[str] = ...) -> None: ...

class DeliveryRef(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class ListDeliveriesRequest(_message.Message):
    __slots__ = ("scope", "endpoint_id", "page")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    endpoint_id: str
    page: _common_pb2.PageRequest
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., endpoint_id: _Optional[str] = ..., page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ...) -> None: ...

class WebhookDeliveryPage(_message.Message):
    __slots__ = ("items", "page")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[WebhookDelivery]
    page: _common_pb2.PageInfo
    def __init__(self, items: _Optional[_Iterable[_Union[WebhookDelivery, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PageInfo, _Mapping]] = ...) -> None: ...

class FeedEvent(_message.Message):
    __slots__ = ("id", "type", "timestamp", "mode", "data_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    timestamp: str
    mode: str
    data_json: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., timestamp: _Optional[str] = ..., mode: _Optional[str] = ..., data_json: _Optional[str] = ...) -> None: ...

class ListEventsRequest(_message.Message):
    __slots__ = ("scope", "page")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    page: _common_pb2.PageRequest
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ...) -> None: ...

class FeedEventPage(_message.Message):
    __slots__ = ("items", "page")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[FeedEvent]
    page: _common_pb2.PageInfo
    def __init__(self, items: _Optional[_Iterable[_Union[FeedEvent, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PageInfo, _Mapping]] = ...) -> None: ...
