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
