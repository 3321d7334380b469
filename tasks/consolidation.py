"""Consolidation jobs: one conversation's episodes, and the periodic scan for conversations that are due."""

from __future__ import annotations

from celery import shared_task

from conversations.models import Conversation
from memoryapp.engine.learning import consolidation
from memoryapp.providers.llm import ProviderError

from .base import PipelineTask


@shared_task(bind=True, base=PipelineTask, name="tasks.consolidation.consolidate_conversation")
def consolidate_conversation(self, conversation_id: int) -> list[int | None]:
    conversation = Conversation.objects.filter(pk=conversation_id).first()
    if conversation is None:
        return []
    if consolidation.waits_for_extraction(conversation) and self.request.retries < self.max_retries:
        # The episode is told what the chat's typed memories hold: let their extraction finish first.
        raise self.retry(countdown=2 + 3 * self.request.retries)
    try:
        return [episode.memory_id for episode in consolidation.consolidate(conversation)]
    except ProviderError as exc:
        if exc.retryable:
            self.retry_later(exc)
        raise


@shared_task(base=PipelineTask, name="tasks.consolidation.consolidate_due")
def consolidate_due() -> int:
    """Beat: queue a consolidation for every conversation with a window waiting (idempotent per window)."""
    return consolidation.queue_due()
