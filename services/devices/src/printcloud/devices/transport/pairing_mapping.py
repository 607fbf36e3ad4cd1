"""Pairing-code rows to messages."""

from __future__ import annotations

from datetime import datetime

from printcloud.core.timeutil import isoformat, isoformat_or_none
from printcloud.devices.domain.pairing_codes import code_state
from printcloud.devices.persistence.rows import EnrollmentRow, PairingCodeRow
from printcloud.v1 import devices_pb2


def pairing_code_to_proto(row: PairingCodeRow, now: datetime) -> devices_pb2.PairingCode:
    return devices_pb2.PairingCode(
        id=str(row.id),
        organization_id=str(row.organization_id),
        mode=row.mode,
        hint=row.hint,
        description=row.description,
        max_uses=row.max_uses,
        uses=row.uses,
        state=code_state(
            revoked=row.revoked_at is not None,
            uses=row.uses,
            max_uses=row.max_uses,
            expires_at=row.expires_at,
            now=now,
        ),
        expires_at=isoformat(row.expires_at),
        revoked_at=isoformat_or_none(row.revoked_at),
        created_at=isoformat(row.created_at),
    )


def enrollment_to_proto(row: EnrollmentRow) -> devices_pb2.PairingCodeEnrollment:
    return devices_pb2.PairingCodeEnrollment(
        id=str(row.id),
        computer_id=str(row.computer_id),
        name=row.name,
        hostname=row.hostname,
        client_address=row.client_address,
        enrolled_at=isoformat(row.enrolled_at),
    )
