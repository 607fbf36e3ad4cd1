"""Integration fixtures: a throwaway database on the real PostgreSQL, the Jobs gRPC server on a
free port, and the shared fake Devices gRPC server, holding only the printers a test adds."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest_asyncio
from sqlalchemy import or_, select

from printcloud.contracts.job_upload import upload_parts
from printcloud.core import rpc
from printcloud.core.db.database import AnyRow, Database
from printcloud.core.http.egress import EgressGuard
from printcloud.core.scope import Scope, scope_to_proto
from printcloud.jobs.app import migrate_schema
from printcloud.jobs.domain.timers import TimerPolicy
from printcloud.jobs.persistence.tables import job_state_changes, outbox, print_jobs
from printcloud.jobs.transport.devices_client import DevicesPrinterDirectory
from printcloud.jobs.transport.servicer import JobsServicer
from printcloud.jobs.use_cases.print_jobs import JobService
from printcloud.jobs.use_cases.timers import JobTimers
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc, jobs_pb2, jobs_pb2_grpc
from tests.support.databases import database_fixtures
from tests.support.fakes.devices import FakeDevices
from tests.support.grpc_server import serving

PDF = b"%PDF-1.7\n% test document\n"


@dataclass
class Stack:
    """The servers plus helpers; each test makes its own organization, so tests share one database."""

    jobs: jobs_pb2_grpc.JobsStub
    devices: FakeDevices
    database_url: str
    db: Database
    service: JobService

    pdf = PDF

    @staticmethod
    def new_scope(mode: str = "live") -> Scope:
        return Scope(uuid.uuid4(), mode)

    @staticmethod
    def proto_scope(scope: Scope) -> common_pb2.Scope:
        return scope_to_proto(scope)

    def add_printer(
        self,
        scope: Scope,
        *,
        enabled: bool = True,
        default_options: dict[str, Any] | None = None,
        computer_id: str | None = None,
        name: str = "HP_LaserJet",
    ) -> devices_pb2.Printer:
        printer = devices_pb2.Printer(
            id=str(uuid.uuid4()),
            organization_id=str(scope.organization_id),
            computer_id=computer_id or str(uuid.uuid4()),
            name=name,
            display_name="Front desk",
            enabled=enabled,
            mode=scope.mode,
            default_options_json=json.dumps(default_options or {}),
        )
        self.devices.printers[printer.id] = printer
        return printer

    async def create_job(self, scope: Scope, printer: devices_pb2.Printer, **fields: Any) -> jobs_pb2.PrintJob:
        """Creates a job through the Jobs server; `data=None` sends no document (URL forms)."""
        data = fields.pop("data", PDF)
        request = jobs_pb2.CreateJobRequest(
            scope=scope_to_proto(scope),
            printer_id=printer.id,
            title=fields.pop("title", "Invoice 42"),
            content_type=fields.pop("content_type", "pdf_base64"),
            **fields,
        )
        created: jobs_pb2.CreateJobResponse = await rpc.call(self.jobs.CreateJob, upload_parts(request, data))
        return created.job

    async def state_changes(self, job_id: str) -> list[AnyRow]:
        """The job's state-change rows as stored, oldest first."""
        async with self.db.read() as session:
            query = select(job_state_changes).where(job_state_changes.c.job_id == uuid.UUID(job_id))
            return list((await session.execute(query.order_by(job_state_changes.c.id))).all())

    async def outbox_rows(self, job_id: str) -> list[AnyRow]:
        """Outbox rows about the job: its events (`data.id`) and agent commands (`data.jobId`)."""
        payload = outbox.table.c.payload
        async with self.db.read() as session:
            query = (
                select(outbox.table)
                .where(or_(payload["data"]["id"].astext == job_id, payload["data"]["jobId"].astext == job_id))
                .order_by(outbox.table.c.id)
            )
            return list((await session.execute(query)).all())

    async def send_count(self, job_id: str) -> int:
        async with self.db.read() as session:
            query = select(print_jobs.c.send_count).where(print_jobs.c.id == uuid.UUID(job_id))
            count: int = (await session.execute(query)).scalar_one()
            return count


database_url, db = database_fixtures("printcloud_jobs_test", migrate_schema)


@pytest_asyncio.fixture(scope="session")
async def stack(database_url: str, db: Database) -> AsyncIterator[Stack]:
    devices = FakeDevices()
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, devices) as devices_channel:
        # Content URLs on 127.0.0.1 only: the tests' own servers.
        directory = DevicesPrinterDirectory(devices_pb2_grpc.DevicesStub(devices_channel))
        service = JobService(db, directory, egress=EgressGuard(["127.0.0.1/32"]))
        servicer = JobsServicer(service, JobTimers(db, TimerPolicy()))
        async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, servicer) as jobs_channel:
            yield Stack(jobs_pb2_grpc.JobsStub(jobs_channel), devices, database_url, db, service)
