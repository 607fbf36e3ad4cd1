from printcloud.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Computer(_message.Message):
    __slots__ = ("id", "organization_id", "name", "hostname", "os", "os_version", "arch", "agent_version", "mode", "state", "created_at", "last_seen_at", "is_virtual")
    ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    OS_FIELD_NUMBER: _ClassVar[int]
    OS_VERSION_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_AT_FIELD_NUMBER: _ClassVar[int]
    IS_VIRTUAL_FIELD_NUMBER: _ClassVar[int]
    id: str
    organization_id: str
    name: str
    hostname: str
    os: str
    os_version: str
    arch: str
    agent_version: str
    mode: str
    state: str
    created_at: str
    last_seen_at: str
    is_virtual: bool
    def __init__(self, id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ..., hostname: _Optional[str] = ..., os: _Optional[str] = ..., os_version: _Optional[str] = ..., arch: _Optional[str] = ..., agent_version: _Optional[str] = ..., mode: _Optional[str] = ..., state: _Optional[str] = ..., created_at: _Optional[str] = ..., last_seen_at: _Optional[str] = ..., is_virtual: _Optional[bool] = ...) -> None: ...

class CustomPaper(_message.Message):
    __slots__ = ("name", "width", "height")
    NAME_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    name: str
    width: int
    height: int
    def __init__(self, name: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ...) -> None: ...

class Printer(_message.Message):
    __slots__ = ("id", "organization_id", "computer_id", "name", "os_name", "description", "display_name", "remarks", "enabled", "is_default", "state", "state_detail", "capabilities_json", "default_options_json", "custom_papers", "created_at", "updated_at", "mode", "computer_os")
    ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OS_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    REMARKS_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_DETAIL_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_JSON_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_PAPERS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_OS_FIELD_NUMBER: _ClassVar[int]
    id: str
    organization_id: str
    computer_id: str
    name: str
    os_name: str
    description: str
    display_name: str
    remarks: str
    enabled: bool
    is_default: bool
    state: str
    state_detail: str
    capabilities_json: str
    default_options_json: str
    custom_papers: _containers.RepeatedCompositeFieldContainer[CustomPaper]
    created_at: str
    updated_at: str
    mode: str
    computer_os: str
    def __init__(self, id: _Optional[str] = ..., organization_id: _Optional[str] = ..., computer_id: _Optional[str] = ..., name: _Optional[str] = ..., os_name: _Optional[str] = ..., description: _Optional[str] = ..., display_name: _Optional[str] = ..., remarks: _Optional[str] = ..., enabled: _Optional[bool] = ..., is_default: _Optional[bool] = ..., state: _Optional[str] = ..., state_detail: _Optional[str] = ..., capabilities_json: _Optional[str] = ..., default_options_json: _Optional[str] = ..., custom_papers: _Optional[_Iterable[_Union[CustomPaper, _Mapping]]] = ..., created_at: _Optional[str] = ..., updated_at: _Optional[str] = ..., mode: _Optional[str] = ..., computer_os: _Optional[str] = ...) -> None: ...

class ListComputersRequest(_message.Message):
    __slots__ = ("scope", "page")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    page: _common_pb2.PageRequest
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ...) -> None: ...

class ComputerPage(_message.Message):
    __slots__ = ("items", "page")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Computer]
    page: _common_pb2.PageInfo
    def __init__(self, items: _Optional[_Iterable[_Union[Computer, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PageInfo, _Mapping]] = ...) -> None: ...

class GetComputerRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class ListPrintersRequest(_message.Message):
    __slots__ = ("scope", "page", "computer_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    page: _common_pb2.PageRequest
    computer_id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ..., computer_id: _Optional[str] = ...) -> None: ...

class PrinterPage(_message.Message):
    __slots__ = ("items", "page")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Printer]
    page: _common_pb2.PageInfo
    def __init__(self, items: _Optional[_Iterable[_Union[Printer, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PageInfo, _Mapping]] = ...) -> None: ...

class PrinterList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Printer]
    def __init__(self, items: _Optional[_Iterable[_Union[Printer, _Mapping]]] = ...) -> None: ...

class GetPrinterRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class EnrollComputerRequest(_message.Message):
    __slots__ = ("scope", "name", "hostname")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    name: str
    hostname: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., name: _Optional[str] = ..., hostname: _Optional[str] = ...) -> None: ...

class EnrollComputerResponse(_message.Message):
    __slots__ = ("computer", "agent_credential")
    COMPUTER_FIELD_NUMBER: _ClassVar[int]
    AGENT_CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    computer: Computer
    agent_credential: str
    def __init__(self, computer: _Optional[_Union[Computer, _Mapping]] = ..., agent_credential: _Optional[str] = ...) -> None: ...

class AuthenticateAgentRequest(_message.Message):
    __slots__ = ("agent_credential",)
    AGENT_CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    agent_credential: str
    def __init__(self, agent_credential: _Optional[str] = ...) -> None: ...

class AgentIdentity(_message.Message):
    __slots__ = ("computer_id", "organization_id", "mode", "disabled")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    organization_id: str
    mode: str
    disabled: bool
    def __init__(self, computer_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., mode: _Optional[str] = ..., disabled: _Optional[bool] = ...) -> None: ...

class ComputerReport(_message.Message):
    __slots__ = ("hostname", "os", "os_version", "arch", "agent_version")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    OS_FIELD_NUMBER: _ClassVar[int]
    OS_VERSION_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    os: str
    os_version: str
    arch: str
    agent_version: str
    def __init__(self, hostname: _Optional[str] = ..., os: _Optional[str] = ..., os_version: _Optional[str] = ..., arch: _Optional[str] = ..., agent_version: _Optional[str] = ...) -> None: ...

class PrinterReport(_message.Message):
    __slots__ = ("name", "os_name", "description", "is_default", "state", "state_detail", "capabilities_json", "default_options_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OS_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_DETAIL_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_JSON_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    os_name: str
    description: str
    is_default: bool
    state: str
    state_detail: str
    capabilities_json: str
    default_options_json: str
    def __init__(self, name: _Optional[str] = ..., os_name: _Optional[str] = ..., description: _Optional[str] = ..., is_default: _Optional[bool] = ..., state: _Optional[str] = ..., state_detail: _Optional[str] = ..., capabilities_json: _Optional[str] = ..., default_options_json: _Optional[str] = ...) -> None: ...

class AgentConnectedRequest(_message.Message):
    __slots__ = ("computer_id", "computer", "printers", "gateway_instance")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_FIELD_NUMBER: _ClassVar[int]
    PRINTERS_FIELD_NUMBER: _ClassVar[int]
    GATEWAY_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    computer: ComputerReport
    printers: _containers.RepeatedCompositeFieldContainer[PrinterReport]
    gateway_instance: str
    def __init__(self, computer_id: _Optional[str] = ..., computer: _Optional[_Union[ComputerReport, _Mapping]] = ..., printers: _Optional[_Iterable[_Union[PrinterReport, _Mapping]]] = ..., gateway_instance: _Optional[str] = ...) -> None: ...

class AgentSeenRequest(_message.Message):
    __slots__ = ("computer_id",)
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    def __init__(self, computer_id: _Optional[str] = ...) -> None: ...

class AgentDisconnectedRequest(_message.Message):
    __slots__ = ("computer_id", "gateway_instance")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    GATEWAY_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    gateway_instance: str
    def __init__(self, computer_id: _Optional[str] = ..., gateway_instance: _Optional[str] = ...) -> None: ...

class ReportPrintersRequest(_message.Message):
    __slots__ = ("computer_id", "printers")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    PRINTERS_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    printers: _containers.RepeatedCompositeFieldContainer[PrinterReport]
    def __init__(self, computer_id: _Optional[str] = ..., printers: _Optional[_Iterable[_Union[PrinterReport, _Mapping]]] = ...) -> None: ...

class UpdateComputerRequest(_message.Message):
    __slots__ = ("scope", "id", "name", "enabled")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    name: str
    enabled: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., enabled: _Optional[bool] = ...) -> None: ...

class DeleteComputerRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class CustomPaperList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[CustomPaper]
    def __init__(self, items: _Optional[_Iterable[_Union[CustomPaper, _Mapping]]] = ...) -> None: ...

class UpdatePrinterRequest(_message.Message):
    __slots__ = ("scope", "id", "default_options_json", "custom_papers", "display_name", "enabled", "remarks", "clear_remarks")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_PAPERS_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    REMARKS_FIELD_NUMBER: _ClassVar[int]
    CLEAR_REMARKS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    default_options_json: str
    custom_papers: CustomPaperList
    display_name: str
    enabled: bool
    remarks: str
    clear_remarks: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., default_options_json: _Optional[str] = ..., custom_papers: _Optional[_Union[CustomPaperList, _Mapping]] = ..., display_name: _Optional[str] = ..., enabled: _Optional[bool] = ..., remarks: _Optional[str] = ..., clear_remarks: _Optional[bool] = ...) -> None: ...

class GatewayHeartbeatRequest(_message.Message):
    __slots__ = ("gateway_instance",)
    GATEWAY_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    gateway_instance: str
    def __init__(self, gateway_instance: _Optional[str] = ...) -> None: ...

class GatewayHeartbeatResponse(_message.Message):
    __slots__ = ("known",)
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    known: bool
    def __init__(self, known: _Optional[bool] = ...) -> None: ...
