"""Import jobs: a user's validated file, written all or nothing (engine/memories/imports.py)."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine.memories import imports

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.imports.import_memories")
def import_memories(import_id: int) -> dict:
    # No retry: a failed run leaves the job failed, with its reason, for the user to see; an admin may
    # re-run it from its FailedTask row (a job already done is not written twice).
    report = imports.run_import(import_id)
    return {"imported": report.imported, "duplicates": report.duplicates}
