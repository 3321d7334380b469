"""Extraction job (Job.EXTRACT): load the window by ids, run it through the engine's `run_window`; retry
the model, record the rest.

Idempotent on (conversation, message window): a finished window is a no-op, so acks_late is safe and a
worker killed mid-batch leaves the run claimable (the engine applies everything in one transaction).
"""

from __future__ import annotations

from celery import shared_task

from conversations.models import Conversation
from memoryapp.engine.errors import MemoryConflict
from memoryapp.engine.learning import extraction
from memoryapp.providers.llm import ProviderError

from .base import PipelineTask


@shared_task(bind=True, base=PipelineTask, name="tasks.extraction.extract_messages")
def extract_messages(self, conversation_id: int, message_ids: list[int] | None = None) -> dict:
    """Extract memories from the given messages (None: the conversation's last 10)."""
    conversation = Conversation.objects.filter(pk=conversation_id).first()
    if conversation is None:
        return {"status": "gone"}  # deleted meanwhile: nothing to do, nothing to retry
    ids = sorted(message_ids) if message_ids else extraction.last_window(conversation_id)
    if not ids:
        return {"status": "empty"}
    run, _created = extraction.queue_run(conversation, ids)
    try:
        return _summary(extraction.run_window(run, owner=self.request.id or "")[0])
    except ProviderError as exc:
        if exc.retryable:
            self.retry_later(exc)
        raise
    except MemoryConflict as exc:  # memories changed under the batch: decide again on fresh neighbours
        self.retry_later(exc)


def _summary(run) -> dict:
    return {
        "run": run.pk,
        "status": run.status,
        "applied": run.applied,
        "llm_calls": run.llm_calls,
        "seconds": run.seconds,
    }


@shared_task(base=PipelineTask, name="tasks.extraction.requeue_stalled")
def requeue_stalled() -> int:
    """Beat (every 10 minutes): send the stalled runs back to a worker."""
    return extraction.requeue_stalled()
