"""An import as a background job: validated up front, written by the worker all or nothing, watched as it goes.

`queue_import` checks every row first (a bad row: nothing is queued, each bad row is reported), keeps the
rows in an ImportJob and asks for `Job.IMPORT` through the engine's seam. `run_import` (the worker's) writes
them through the batch path in one transaction; after each batch it tells the user's open pages how far it
got (`MemoryEventType.PROGRESS`, through Redis, not the database) and moves the job's `done` through a database
connection of its own, so that a poll sees it before the transaction commits. `import_memories` is the
same job run at once, where the caller waits for the answer (the MCP tool, scripts).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from memoryapp.events import publish_progress
from memoryapp.lib import clients
from memoryapp.models import Actor, MemorySource
from memoryapp.pipeline.models import ImportJob, RunStatus

from .. import jobs
from ..jobs import Job
from .bulk import BATCH, bulk_add
from .transfer import ImportReport, RowError, validate_rows
from .validation import SECRETS_CHECKED, MemoryInput

log = logging.getLogger(__name__)

PROGRESS_JOB = "import"  # the `job` a MemoryEventType.PROGRESS event names
NOT_QUEUED = "the background queue could not be reached; nothing was imported"
FAILED = "the import failed (%s); nothing was imported"
_LOCK_NAMESPACE = 7302  # pg_advisory_xact_lock(namespace, job id): one run of a job at a time


@dataclass
class QueuedImport:
    job: ImportJob | None = None
    errors: list[RowError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def queue_import(user, data: object, *, actor: str = Actor.USER) -> QueuedImport:
    """Validate every row; if all are good, keep them in a new job and queue it once the caller's transaction
    commits. Raises MemoryValidationError for a file that is no list of rows (or too long)."""
    job, errors = _new_job(user, data, actor)
    if job is not None:
        jobs.enqueue(Job.IMPORT, job.pk, if_not_queued=functools.partial(_not_queued, job.pk))
    return QueuedImport(job, errors)


def _not_queued(job_id: int) -> None:
    """The broker was down: the job fails at once (nothing was written), rather than wait for no worker."""
    job = ImportJob.objects.filter(pk=job_id, status=RunStatus.QUEUED).first()
    if job is None:
        return
    ImportJob.objects.filter(pk=job_id).update(status=RunStatus.FAILED, error=NOT_QUEUED, finished_at=timezone.now())
    publish_progress(job.user_id, PROGRESS_JOB, 0, job.total, state="failed")


def import_memories(user, data: object, *, actor: str = Actor.USER) -> ImportReport:
    """The same job, run here and now: validate, write all or nothing, report."""
    job, errors = _new_job(user, data, actor)
    if job is None:
        return ImportReport(errors=errors)
    return run_import(job.pk)


def _new_job(user, data: object, actor: str) -> tuple[ImportJob | None, list[RowError]]:
    items, errors = validate_rows(data)
    if errors:
        return None, errors
    rows = [item.model_dump(mode="json", exclude_none=True) for item in items]
    job = ImportJob.objects.create(user=user, rows=rows, total=len(rows), actor=actor, client=clients.current_client())
    return job, []


def job_of(user, job_id: int) -> ImportJob | None:
    """The user's import job; another user's is missing, like one that never existed."""
    return ImportJob.objects.filter(user=user, pk=job_id).first()


def run_import(job_id: int) -> ImportReport:
    """Write the job's rows all or nothing (the worker's `Job.IMPORT`). A job already done answers its
    report again; a run that fails marks the job failed and raises, and nothing of it is written. A job
    gone meanwhile (its user purged everything, or left) writes nothing."""
    job = ImportJob.objects.filter(pk=job_id).first()
    if job is None:
        return ImportReport()
    with _JobRow(job) as row:
        if job.status != RunStatus.DONE:
            row.update(status=RunStatus.RUNNING)
        try:
            with clients.acting_for(job.client):  # the program that sent the rows, on what they write
                report = _write(job_id, row)
        except Exception as exc:  # the details go to the worker's log and the FailedTask row, not to the user
            row.update(status=RunStatus.FAILED, done=0, error=FAILED % type(exc).__name__)
            publish_progress(job.user_id, PROGRESS_JOB, 0, job.total, state="failed")
            raise
    return report


def _write(job_id: int, row: _JobRow) -> ImportReport:
    with transaction.atomic():  # bulk_add's batches are savepoints of this one: all or nothing
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, job_id])
        job = ImportJob.objects.filter(pk=job_id).first()  # a run that held the lock before may have finished it
        if job is None:
            return ImportReport()
        if job.status == RunStatus.DONE:
            return ImportReport(imported=job.imported, duplicates=job.duplicates)
        # Checked for secrets when the job was queued (_new_job): parsed back, not checked again.
        items = [MemoryInput.model_validate(item, context=SECRETS_CHECKED) for item in job.rows]
        created = bulk_add(
            job.user_id, items, source=MemorySource.IMPORTED, actor=job.actor, batch_size=BATCH, progress=row.progress
        )
        report = ImportReport(imported=sum(1 for memory in created if memory is not None))
        report.duplicates = len(created) - report.imported
        ImportJob.objects.filter(pk=job.pk).update(
            status=RunStatus.DONE,
            done=len(items),
            imported=report.imported,
            duplicates=report.duplicates,
            rows=[],
            error="",
            finished_at=timezone.now(),
        )
        # After the memories' own BATCH event: the pages' report comes once the list can show them.
        transaction.on_commit(
            lambda: publish_progress(
                job.user_id,
                PROGRESS_JOB,
                len(items),
                len(items),
                state="done",
                imported=report.imported,
                duplicates=report.duplicates,
            )
        )
    return report


class _JobRow:
    """The job's row, updated through a database connection of its own: each update commits at once, while
    the import's transaction is still open (which holds no lock on the row until its last statement)."""

    def __init__(self, job: ImportJob):
        self.job = job
        self.own: BaseDatabaseWrapper | None = None

    def __enter__(self) -> _JobRow:
        self.own = connections.create_connection(DEFAULT_DB_ALIAS)
        return self

    def __exit__(self, *exc_info) -> None:
        if self.own is not None:
            self.own.close()

    def update(self, **changes) -> None:
        if self.own is None:  # outside `with`: nowhere to write
            return
        try:
            self.own.set_autocommit(True)
            with self.own.cursor() as cursor:
                columns = ", ".join(f"{name} = %s" for name in changes)  # names from this module, never input
                cursor.execute(
                    f"UPDATE {ImportJob._meta.db_table} SET {columns} WHERE id = %s", [*changes.values(), self.job.pk]
                )
        except Exception:  # progress is a courtesy: the import itself goes on
            log.warning("could not record the progress of import job %s", self.job.pk, exc_info=True)

    def progress(self, done: int, total: int) -> None:
        self.update(done=done)
        publish_progress(self.job.user_id, PROGRESS_JOB, done, total)
