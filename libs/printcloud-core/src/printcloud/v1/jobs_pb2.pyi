from printcloud.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BasicAuth(_message.Message):
    __slots__ = ("user",)
    USER_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    user: str
    def __init__(self, user: _Optional[str] = ..., **kwargs) -> None: ...

class CreateJobRequest(_message.Message):
    __slots__ = ("scope", "printer_id", "title", "content_type", "url", "source", "qty", "expire_after", "options_json", "reprint_of", "authentication", "request_id", "live_print_quota", "idempotency_key", "request_fingerprint")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PRINTER_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    QTY_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_AFTER_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    REPRINT_OF_FIELD_NUMBER: _ClassVar[int]
    AUTHENTICATION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    LIVE_PRINT_QUOTA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    printer_id: str
    title: str
    content_type: str
    url: str
    source: str
    qty: int
    expire_after: int
    options_json: str
    reprint_of: str
    authentication: BasicAuth
    request_id: str
    live_print_quota: int
    idempotency_key: str
    request_fingerprint: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., printer_id: _Optional[str] = ..., title: _Optional[str] = ..., content_type: _Optional[str] = ..., url: _Optional[str] = ..., source: _Optional[str] = ..., qty: _Optional[int] = ..., expire_after: _Optional[int] = ..., options_json: _Optional[str] = ..., reprint_of: _Optional[str] = ..., authentication: _Optional[_Union[BasicAuth, _Mapping]] = ..., request_id: _Optional[str] = ..., live_print_quota: _Optional[int] = ..., idempotency_key: _Optional[str] = ..., request_fingerprint: _Optional[str] = ...) -> None: ...

class CreateJobResponse(_message.Message):
    __slots__ = ("job", "replayed")
    JOB_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    job: PrintJob
    replayed: bool
    def __init__(self, job: _Optional[_Union[PrintJob, _Mapping]] = ..., replayed: _Optional[bool] = ...) -> None: ...

class CreateJobPart(_message.Message):
    __slots__ = ("request", "data")
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    request: CreateJobRequest
    data: bytes
    def __init__(self, request: _Optional[_Union[CreateJobRequest, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class PrintJob(_message.Message):
    __slots__ = ("id", "organization_id", "printer_id", "computer_id", "title", "content_type", "source", "qty", "options_json", "expire_after", "expires_at", "file_sha256", "file_size", "mode", "state", "state_message", "created_at", "sent_at", "received_at", "printing_at", "finished_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    PRINTER_ID_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    QTY_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_AFTER_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    FILE_SHA256_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    PRINTING_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    organization_id: str
    printer_id: str
    computer_id: str
    title: str
    content_type: str
    source: str
    qty: int
    options_json: str
    expire_after: int
    expires_at: str
    file_sha256: str
    file_size: int
    mode: str
    state: str
    state_message: str
    created_at: str
    sent_at: str
    received_at: str
    printing_at: str
    finished_at: str
    def __init__(self, id: _Optional[str] = ..., organization_id: _Optional[str] = ..., printer_id: _Optional[str] = ..., computer_id: _Optional[str] = ..., title: _Optional[str] = ..., content_type: _Optional[str] = ..., source: _Optional[str] = ..., qty: _Optional[int] = ..., options_json: _Optional[str] = ..., expire_after: _Optional[int] = ..., expires_at: _Optional[str] = ..., file_sha256: _Optional[str] = ..., file_size: _Optional[int] = ..., mode: _Optional[str] = ..., state: _Optional[str] = ..., state_message: _Optional[str] = ..., created_at: _Optional[str] = ..., sent_at: _Optional[str] = ..., received_at: _Optional[str] = ..., printing_at: _Optional[str] = ..., finished_at: _Optional[str] = ...) -> None: ...

class GetJobRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class JobFilters(_message.Message):
    __slots__ = ("printer_id", "computer_id", "state", "created_from", "created_to")
    PRINTER_ID_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FROM_FIELD_NUMBER: _ClassVar[int]
    CREATED_TO_FIELD_NUMBER: _ClassVar[int]
    printer_id: str
    computer_id: str
    state: str
    created_from: str
    created_to: str
    def __init__(self, printer_id: _Optional[str] = ..., computer_id: _Optional[str] = ..., state: _Optional[str] = ..., created_from: _Optional[str] = ..., created_to: _Optional[str] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ("scope", "page", "filters")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    page: _common_pb2.PageRequest
    filters: JobFilters
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., page: _Optional[_Union[_common_pb2.PageRequest, _Mapping]] = ..., filters: _Optional[_Union[JobFilters, _Mapping]] = ...) -> None: ...

class JobPage(_message.Message):
    __slots__ = ("items", "page")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[PrintJob]
    page: _common_pb2.PageInfo
    def __init__(self, items: _Optional[_Iterable[_Union[PrintJob, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PageInfo, _Mapping]] = ...) -> None: ...

class JobStateChange(_message.Message):
    __slots__ = ("id", "state", "message", "actor", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    state: str
    message: str
    actor: str
    created_at: str
    def __init__(self, id: _Optional[str] = ..., state: _Optional[str] = ..., message: _Optional[str] = ..., actor: _Optional[str] = ..., created_at: _Optional[str] = ...) -> None: ...

class JobStateChangeList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[JobStateChange]
    def __init__(self, items: _Optional[_Iterable[_Union[JobStateChange, _Mapping]]] = ...) -> None: ...

class AgentJobRequest(_message.Message):
    __slots__ = ("computer_id", "job_id")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    job_id: str
    def __init__(self, computer_id: _Optional[str] = ..., job_id: _Optional[str] = ...) -> None: ...

class ClaimDeliveryRequest(_message.Message):
    __slots__ = ("computer_id", "job_id", "resend_of")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    RESEND_OF_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    job_id: str
    resend_of: int
    def __init__(self, computer_id: _Optional[str] = ..., job_id: _Optional[str] = ..., resend_of: _Optional[int] = ...) -> None: ...

class ClaimDeliveryResponse(_message.Message):
    __slots__ = ("claimed", "delivery")
    CLAIMED_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    claimed: bool
    delivery: JobDelivery
    def __init__(self, claimed: _Optional[bool] = ..., delivery: _Optional[_Union[JobDelivery, _Mapping]] = ...) -> None: ...

class ReportJobStateRequest(_message.Message):
    __slots__ = ("computer_id", "job_id", "state", "message")
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    job_id: str
    state: str
    message: str
    def __init__(self, computer_id: _Optional[str] = ..., job_id: _Optional[str] = ..., state: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class JobDelivery(_message.Message):
    __slots__ = ("job_id", "computer_id", "printer_id", "title", "content_type", "qty", "options_json", "file_sha256", "file_size", "state", "printer_name", "custom_paper")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    PRINTER_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    QTY_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    FILE_SHA256_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PRINTER_NAME_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_PAPER_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    computer_id: str
    printer_id: str
    title: str
    content_type: str
    qty: int
    options_json: str
    file_sha256: str
    file_size: int
    state: str
    printer_name: str
    custom_paper: PaperSize
    def __init__(self, job_id: _Optional[str] = ..., computer_id: _Optional[str] = ..., printer_id: _Optional[str] = ..., title: _Optional[str] = ..., content_type: _Optional[str] = ..., qty: _Optional[int] = ..., options_json: _Optional[str] = ..., file_sha256: _Optional[str] = ..., file_size: _Optional[int] = ..., state: _Optional[str] = ..., printer_name: _Optional[str] = ..., custom_paper: _Optional[_Union[PaperSize, _Mapping]] = ...) -> None: ...

class PaperSize(_message.Message):
    __slots__ = ("name", "width", "height")
    NAME_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    name: str
    width: int
    height: int
    def __init__(self, name: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ...) -> None: ...

class JobDeliveryList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[JobDelivery]
    def __init__(self, items: _Optional[_Iterable[_Union[JobDelivery, _Mapping]]] = ...) -> None: ...

class ListPendingJobsRequest(_message.Message):
    __slots__ = ("computer_id",)
    COMPUTER_ID_FIELD_NUMBER: _ClassVar[int]
    computer_id: str
    def __init__(self, computer_id: _Optional[str] = ...) -> None: ...

class FileChunk(_message.Message):
    __slots__ = ("data", "file_size")
    DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    file_size: int
    def __init__(self, data: _Optional[bytes] = ..., file_size: _Optional[int] = ...) -> None: ...

class FireDueTimersRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class FireDueTimersResponse(_message.Message):
    __slots__ = ("resent", "requeued", "timed_out", "expired")
    RESENT_FIELD_NUMBER: _ClassVar[int]
    REQUEUED_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_FIELD_NUMBER: _ClassVar[int]
    resent: int
    requeued: int
    timed_out: int
    expired: int
    def __init__(self, resent: _Optional[int] = ..., requeued: _Optional[int] = ..., timed_out: _Optional[int] = ..., expired: _Optional[int] = ...) -> None: ...

class GetUsageRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("period_start", "period_end", "live_prints", "day_start", "day_end", "test_jobs_today", "test_jobs_per_day")
    PERIOD_START_FIELD_NUMBER: _ClassVar[int]
    PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    LIVE_PRINTS_FIELD_NUMBER: _ClassVar[int]
    DAY_START_FIELD_NUMBER: _ClassVar[int]
    DAY_END_FIELD_NUMBER: _ClassVar[int]
    TEST_JOBS_TODAY_FIELD_NUMBER: _ClassVar[int]
    TEST_JOBS_PER_DAY_FIELD_NUMBER: _ClassVar[int]
    period_start: str
    period_end: str
    live_prints: int
    day_start: str
    day_end: str
    test_jobs_today: int
    test_jobs_per_day: int
    def __init__(self, period_start: _Optional[str] = ..., period_end: _Optional[str] = ..., live_prints: _Optional[int] = ..., day_start: _Optional[str] = ..., day_end: _Optional[str] = ..., test_jobs_today: _Optional[int] = ..., test_jobs_per_day: _Optional[int] = ...) -> None: ...
