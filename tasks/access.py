"""Access counts recorded by recall, moved into Postgres every minute (beat); old read records dropped nightly."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine.recall import access

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.access.flush_access")
def flush_access() -> int:
    return access.flush_access()


@shared_task(base=PipelineTask, name="tasks.access.drop_old_read_records")
def drop_old_read_records() -> int:
    return access.drop_old_read_records()
