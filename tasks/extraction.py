"""Extraction job: load the window by ids, claim its run, call the engine; retry the model, record the rest.

Idempotent on (conversation, message window): a finished window is a no-op, so acks_late is safe and a
worker killed mid-batch leaves the run claimable (the engine applies everything in one transaction).
"""
from __future__ import annotations

import logging

from celery import shared_task

from conversations.models import Conversation
from memoryapp.engine import extraction
from memoryapp.engine.errors import MemoryConflict
from memoryapp.providers.llm import ProviderError

from .base import PipelineTask, backoff

log = logging.getLogger(__name__)


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
    if not extraction.claim(run, owner=self.request.id or ""):
        return _summary(run)  # done already, or another worker has it
    try:
        return _summary(extraction.extract(run).run)
    except extraction.RunTakenOver:
        run.refresh_from_db()
        return _summary(run)  # the attempt that took over applies the batch
    except ProviderError as exc:
        extraction.fail(run, str(exc))
        if exc.retryable and self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc
        raise
    except MemoryConflict as exc:  # memories changed under the batch: decide again on fresh neighbours
        extraction.fail(run, str(exc))
        if self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc
        raise
    except Exception as exc:
        extraction.fail(run, f"{type(exc).__name__}: {exc}")
        raise


def _summary(run) -> dict:
    return {"run": run.pk, "status": run.status, "applied": run.applied, "llm_calls": run.llm_calls,
            "seconds": run.seconds}


@shared_task(base=PipelineTask, name="tasks.extraction.requeue_stalled")
def requeue_stalled() -> int:
    """The sweep (every 10 minutes): send stalled runs to a worker again. Safe to repeat: a run
    that another worker holds or has finished is not claimed twice."""
    runs = extraction.stalled_runs()
    for run in runs:
        extract_messages.delay(run.conversation_id, run.message_ids)
    if runs:
        log.info("re-queued %d stalled extraction runs", len(runs))
    return len(runs)
