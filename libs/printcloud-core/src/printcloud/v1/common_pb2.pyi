from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Scope(_message.Message):
    __slots__ = ("organization_id", "mode")
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    mode: str
    def __init__(self, organization_id: _Optional[str] = ..., mode: _Optional[str] = ...) -> None: ...

class PageRequest(_message.Message):
    __slots__ = ("limit", "after", "dir")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    DIR_FIELD_NUMBER: _ClassVar[int]
    limit: int
    after: str
    dir: str
    def __init__(self, limit: _Optional[int] = ..., after: _Optional[str] = ..., dir: _Optional[str] = ...) -> None: ...

class PageInfo(_message.Message):
    __slots__ = ("has_more", "next_cursor")
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    has_more: bool
    next_cursor: str
    def __init__(self, has_more: _Optional[bool] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class Empty(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
