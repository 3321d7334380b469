"""Cue jobs: the beat queues one pass per user whose memories lack cues, when a model is configured;
each pass batches CUE_BATCH memories per model call (engine/learning/cues.py)."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine import jobs
from memoryapp.engine.jobs import Job
from memoryapp.engine.learning import cues

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.cues.write_cues")
def write_cues(user_id: int) -> int:
    return cues.write_missing_cues(user_id)


@shared_task(base=PipelineTask, name="tasks.cues.queue_cues")
def queue_cues() -> int:
    """Beat (every 5 minutes): a pass for each user with memories waiting for cues; none without a model."""
    from memoryapp.providers.llm import llm_configured

    if not llm_configured():
        return 0
    users = cues.users_waiting()
    for user_id in users:
        jobs.enqueue(Job.WRITE_CUES, user_id)
    return len(users)
