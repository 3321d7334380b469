"""The nightly memory reviewer: for every user, current memories of one slot that disagree become a question
on the memories page (engine/memories/conflicts.py); asking twice about a pair is a no-op."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine.learning.forgetting import users_with_memories
from memoryapp.engine.memories import conflicts

from .base import PipelineTask


@shared_task(base=PipelineTask, name="tasks.review.review_all")
def review_all() -> int:
    """Beat (after the forgetting pass): the questions asked, over all users."""
    return sum(len(conflicts.review(user_id)) for user_id in users_with_memories())
