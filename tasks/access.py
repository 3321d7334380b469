"""Access counts recorded by recall, moved into Postgres every minute (beat)."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine.recall.access import flush_access as flush

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.access.flush_access")
def flush_access() -> int:
    return flush()
