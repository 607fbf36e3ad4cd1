"""IPP/1.1-2.0 messages (RFC 8010) encoded and decoded in pure Python: no I/O here.

Only what the agent needs: requests with plain, range, resolution and collection values, and
responses decoded into `{name: [values]}` per attribute group.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import TypeAlias

# Operations (RFC 8011 and CUPS extensions).
PRINT_JOB = 0x0002
CANCEL_JOB = 0x0008
GET_JOB_ATTRIBUTES = 0x0009
GET_PRINTER_ATTRIBUTES = 0x000B
CUPS_GET_DEFAULT = 0x4001
CUPS_GET_PRINTERS = 0x4002

# Group delimiters.
OPERATION_GROUP = 0x01
JOB_GROUP = 0x02
END_OF_ATTRIBUTES = 0x03
PRINTER_GROUP = 0x04

# Value tags.
INTEGER = 0x21
BOOLEAN = 0x22
ENUM = 0x23
OCTET_STRING = 0x30
DATE_TIME = 0x31
RESOLUTION = 0x32
RANGE = 0x33
BEGIN_COLLECTION = 0x34
TEXT_WITH_LANGUAGE = 0x35
NAME_WITH_LANGUAGE = 0x36
END_COLLECTION = 0x37
TEXT = 0x41
NAME = 0x42
KEYWORD = 0x44
URI = 0x45
CHARSET = 0x47
NATURAL_LANGUAGE = 0x48
MIME_TYPE = 0x49
MEMBER_NAME = 0x4A

RESOLUTION_DPI = 3
RESOLUTION_DPCM = 4

# Status codes at or above this are errors (RFC 8011 section 4.1.6).
FIRST_ERROR_STATUS = 0x0400
STATUS_NOT_FOUND = 0x0406


@dataclass(frozen=True)
class Resolution:
    x: int
    y: int
    units: int = RESOLUTION_DPI


@dataclass(frozen=True)
class Range:
    lower: int
    upper: int


@dataclass(frozen=True)
class Attribute:
    name: str
    tag: int
    values: tuple[SentValue, ...]

    @classmethod
    def of(cls, name: str, tag: int, *values: SentValue) -> Attribute:
        return cls(name, tag, values)


@dataclass(frozen=True)
class Collection:
    """A collection value: its member attributes, in order."""

    members: tuple[Attribute, ...]


# A value as a request carries it; the tag of its attribute says how it is encoded.
SentValue: TypeAlias = "int | bool | str | bytes | Range | Resolution | Collection"
# A value as a response carries it: a collection arrives as its members by name, and an
# out-of-band or binary value as its raw bytes.
Value: TypeAlias = "int | bool | str | bytes | Range | Resolution | dict[str, list[Value]]"
# One attribute group of a response: each attribute's values by its name.
Attributes: TypeAlias = dict[str, list[Value]]


def first_value(attrs: Attributes, name: str, default: Value | None = None) -> Value | None:
    """An attribute's first value: most attributes the agent reads are single-valued."""
    values = attrs.get(name)
    return values[0] if values else default


@dataclass
class Response:
    status: int
    request_id: int
    groups: list[tuple[int, Attributes]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status < FIRST_ERROR_STATUS

    def first(self, group: int) -> Attributes:
        return next((attrs for tag, attrs in self.groups if tag == group), {})

    def all(self, group: int) -> list[Attributes]:
        return [attrs for tag, attrs in self.groups if tag == group]

    def status_message(self) -> str:
        message = self.first(OPERATION_GROUP).get("status-message")
        return str(message[0]) if message else f"IPP status 0x{self.status:04x}"


class IppError(Exception):
    pass


def encode_request(
    operation: int, request_id: int, groups: list[tuple[int, list[Attribute]]], *, version: tuple[int, int] = (2, 0)
) -> bytes:
    """A request with attributes-charset and attributes-natural-language first, as RFC 8011 asks."""
    out = bytearray(struct.pack(">bbhi", version[0], version[1], operation, request_id))
    for group, attributes in groups:
        out.append(group)
        if group == OPERATION_GROUP:
            attributes = [
                Attribute.of("attributes-charset", CHARSET, "utf-8"),
                Attribute.of("attributes-natural-language", NATURAL_LANGUAGE, "en"),
                *attributes,
            ]
        for attribute in attributes:
            _encode_attribute(out, attribute)
    out.append(END_OF_ATTRIBUTES)
    return bytes(out)


def _encode_attribute(out: bytearray, attribute: Attribute) -> None:
    for index, value in enumerate(attribute.values):
        name = attribute.name if index == 0 else ""
        if attribute.tag == BEGIN_COLLECTION:
            assert isinstance(value, Collection), "a collection attribute carries Collection values"
            _put(out, BEGIN_COLLECTION, name, b"")
            for member in value.members:
                _encode_member(out, member)
            _put(out, END_COLLECTION, "", b"")
        else:
            _put(out, attribute.tag, name, _encode_value(attribute.tag, value))


def _encode_member(out: bytearray, member: Attribute) -> None:
    _put(out, MEMBER_NAME, "", member.name.encode())
    for value in member.values:
        if member.tag == BEGIN_COLLECTION:
            assert isinstance(value, Collection), "a collection member carries Collection values"
            _put(out, BEGIN_COLLECTION, "", b"")
            for inner in value.members:
                _encode_member(out, inner)
            _put(out, END_COLLECTION, "", b"")
        else:
            _put(out, member.tag, "", _encode_value(member.tag, value))


def _put(out: bytearray, tag: int, name: str, value: bytes) -> None:
    encoded = name.encode()
    out += struct.pack(">bh", tag, len(encoded)) + encoded + struct.pack(">h", len(value)) + value


def _encode_value(tag: int, value: SentValue) -> bytes:
    if tag in (INTEGER, ENUM):
        return struct.pack(">i", value)
    if tag == BOOLEAN:
        return b"\x01" if value else b"\x00"
    if tag == RANGE:
        assert isinstance(value, Range), "a rangeOfInteger attribute carries Range values"
        return struct.pack(">ii", value.lower, value.upper)
    if tag == RESOLUTION:
        assert isinstance(value, Resolution), "a resolution attribute carries Resolution values"
        return struct.pack(">iib", value.x, value.y, value.units)
    if isinstance(value, bytes):
        return value
    return str(value).encode()


def decode_response(data: bytes) -> Response:
    try:
        return _Decoder(data).response()
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise IppError(f"malformed IPP response: {exc}") from exc


class _Decoder:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def _take(self, size: int) -> bytes:
        chunk = self._data[self._pos : self._pos + size]
        if len(chunk) != size:
            raise IndexError("truncated")
        self._pos += size
        return chunk

    def _next(self) -> tuple[int, str, bytes]:
        tag = self._take(1)[0]
        name = self._take(struct.unpack(">h", self._take(2))[0]).decode()
        value = self._take(struct.unpack(">h", self._take(2))[0])
        return tag, name, value

    def response(self) -> Response:
        _, _, status, request_id = struct.unpack(">bbhi", self._take(8))
        response = Response(status, request_id)
        attrs: Attributes | None = None
        last = ""
        while True:
            tag = self._data[self._pos]
            if tag == END_OF_ATTRIBUTES:
                return response
            if tag < 0x10:  # a group delimiter
                self._pos += 1
                attrs = {}
                response.groups.append((tag, attrs))
                continue
            tag, name, raw = self._next()
            if attrs is None:
                raise IndexError("attribute outside a group")
            last = name or last
            value = self._collection() if tag == BEGIN_COLLECTION else _decode_value(tag, raw)
            attrs.setdefault(last, []).append(value)

    def _collection(self) -> Attributes:
        members: Attributes = {}
        member = ""
        while True:
            tag, _, raw = self._next()
            if tag == END_COLLECTION:
                return members
            if tag == MEMBER_NAME:
                member = raw.decode()
                continue
            value = self._collection() if tag == BEGIN_COLLECTION else _decode_value(tag, raw)
            members.setdefault(member, []).append(value)


def _decode_value(tag: int, raw: bytes) -> Value:
    if tag in (INTEGER, ENUM):
        return int(struct.unpack(">i", raw)[0])
    if tag == BOOLEAN:
        return raw != b"\x00"
    if tag == RANGE:
        return Range(*struct.unpack(">ii", raw))
    if tag == RESOLUTION:
        return Resolution(*struct.unpack(">iib", raw))
    if tag in (TEXT_WITH_LANGUAGE, NAME_WITH_LANGUAGE):
        language_length = struct.unpack(">h", raw[:2])[0]
        text_at = 2 + language_length
        return raw[text_at + 2 : text_at + 2 + struct.unpack(">h", raw[text_at : text_at + 2])[0]].decode()
    if tag < 0x20 or tag in (OCTET_STRING, DATE_TIME):
        return raw  # out-of-band values (unsupported, no-value) and binary ones
    return raw.decode()
