"""Forgetting jobs: the nightly beat fans out one task per user; each is idempotent for its day."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.utils.dateparse import parse_datetime

from memoryapp.engine.learning import forgetting

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.forgetting.forget_user")
def forget_user(user_id: int, now: str | None = None) -> dict:
    moment: datetime | None = parse_datetime(now) if now else None
    changes, applied = forgetting.forget_user(user_id, moment)
    return {"applied": applied, "changes": len(changes)}


@shared_task(base=PipelineTask, name="tasks.forgetting.forget_all")
def forget_all() -> int:
    """Beat (FORGET_HOUR): queue one pass per user who has memories."""
    return forgetting.queue_all()
