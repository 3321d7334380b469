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

from .base import PipelineTask

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
    try:
        return _summary(run_window(run, owner=self.request.id or "")[0])
    except ProviderError as exc:
        if exc.retryable:
            self.retry_later(exc)
        raise
    except MemoryConflict as exc:  # memories changed under the batch: decide again on fresh neighbours
        self.retry_later(exc)


def run_window(run: extraction.ExtractionRun, owner: str = "") -> tuple[extraction.ExtractionRun, bool]:
    """Claim `run` and extract it; returns the run and whether this call ran it (False: it was done
    already, or another worker holds it). Any failure marks the run failed before it propagates, so a
    run never stays "running" because its attempt died; the task and `manage.py extract` both call this."""
    if not extraction.claim(run, owner=owner):
        return run, False
    try:
        return extraction.extract(run).run, True
    except extraction.RunTakenOver:
        run.refresh_from_db()
        return run, False  # the attempt that took over applies the batch
    except (ProviderError, MemoryConflict) as exc:
        extraction.fail(run, str(exc))
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
