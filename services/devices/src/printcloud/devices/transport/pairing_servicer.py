"""The pairing-code RPCs of `printcloud.v1.Devices`, mixed into `DevicesServicer`."""

from __future__ import annotations

from printcloud.contracts.errors import ApiError
from printcloud.core.db.paging import PageRequest, page_info_to_proto
from printcloud.core.ids import resource_id
from printcloud.core.rpc import ServicerContext
from printcloud.core.scope import scope_from_proto
from printcloud.core.timeutil import utcnow
from printcloud.devices.transport.mapping import computer_to_proto
from printcloud.devices.transport.pairing_mapping import enrollment_to_proto, pairing_code_to_proto
from printcloud.devices.use_cases.pairing import PAIRING_CODE, PairingCodes
from printcloud.v1 import devices_pb2


class PairingServicer:
    pairing: PairingCodes | None

    def _codes(self) -> PairingCodes:
        if self.pairing is None:
            # Only a process wired without its server secret (some tests) gets here.
            raise ApiError("service_unavailable", "Pairing codes are not configured on this devices service.")
        return self.pairing

    async def CreatePairingCode(
        self, request: devices_pb2.CreatePairingCodeRequest, context: ServicerContext
    ) -> devices_pb2.CreatedPairingCode:
        created = await self._codes().create(
            scope_from_proto(request.scope),
            request.expire_after_seconds if request.HasField("expire_after_seconds") else None,
            request.max_uses if request.HasField("max_uses") else None,
            request.description,
        )
        return devices_pb2.CreatedPairingCode(
            pairing_code=pairing_code_to_proto(created.row, utcnow()), code=created.code
        )

    async def ListPairingCodes(
        self, request: devices_pb2.ListPairingCodesRequest, context: ServicerContext
    ) -> devices_pb2.PairingCodePage:
        page = await self._codes().list(scope_from_proto(request.scope), PageRequest.from_proto(request.page))
        now = utcnow()
        return devices_pb2.PairingCodePage(
            items=[pairing_code_to_proto(row, now) for row in page.items], page=page_info_to_proto(page)
        )

    async def GetPairingCode(
        self, request: devices_pb2.PairingCodeRef, context: ServicerContext
    ) -> devices_pb2.PairingCode:
        row = await self._codes().get(scope_from_proto(request.scope), resource_id(request.id, PAIRING_CODE))
        return pairing_code_to_proto(row, utcnow())

    async def RevokePairingCode(
        self, request: devices_pb2.PairingCodeRef, context: ServicerContext
    ) -> devices_pb2.PairingCode:
        row = await self._codes().revoke(scope_from_proto(request.scope), resource_id(request.id, PAIRING_CODE))
        return pairing_code_to_proto(row, utcnow())

    async def ListPairingCodeEnrollments(
        self, request: devices_pb2.ListPairingCodeEnrollmentsRequest, context: ServicerContext
    ) -> devices_pb2.PairingCodeEnrollmentPage:
        scope = scope_from_proto(request.scope)
        code_id = resource_id(request.id, PAIRING_CODE)
        page = await self._codes().list_enrollments(scope, code_id, PageRequest.from_proto(request.page))
        return devices_pb2.PairingCodeEnrollmentPage(
            items=[enrollment_to_proto(row) for row in page.items], page=page_info_to_proto(page)
        )

    async def EnrollWithPairingCode(
        self, request: devices_pb2.EnrollWithPairingCodeRequest, context: ServicerContext
    ) -> devices_pb2.EnrollComputerResponse:
        computer, credential = await self._codes().enroll(
            request.code, request.name, request.hostname, request.client_address
        )
        return devices_pb2.EnrollComputerResponse(computer=computer_to_proto(computer), agent_credential=credential)
