"""Learning from another program's conversation (Job.LEARN: engine/learning/turns.py) and from a ChatGPT or Claude
export (Job.LEARN_HISTORY: engine/history/importing.py)."""

from __future__ import annotations

from celery import shared_task

from memoryapp.engine.errors import MemoryConflict
from memoryapp.engine.history import importing
from memoryapp.engine.learning import turns
from memoryapp.providers.llm import ProviderError

from .base import PipelineTask


@shared_task(bind=True, base=PipelineTask, name="tasks.learning.learn_conversation")
def learn_conversation(self, learn_id: int) -> dict:
    # Each window is learnt in its own transaction with the job's count of windows done, so a retry (or a
    # redelivery after a crash: acks_late) goes on after the last window learnt and never learns one twice.
    try:
        job = turns.run_learning(learn_id, will_retry=self.request.retries < self.max_retries)
    except ProviderError as exc:
        if exc.retryable:
            self.retry_later(exc)
        raise
    except MemoryConflict as exc:  # memories changed under a window: decide again on fresh neighbours
        self.retry_later(exc)
    if job is None:
        return {"status": "gone"}
    return {"status": job.status, "created": job.created, "superseded": job.superseded}


@shared_task(bind=True, base=PipelineTask, name="tasks.learning.learn_history")
def learn_history(self, history_id: int) -> dict:
    # Each conversation is learnt in its own transaction with the import's count done, so a retry (or a
    # redelivery after a crash: acks_late) goes on after the last conversation learnt.
    try:
        job = importing.run_history_import(history_id, will_retry=self.request.retries < self.max_retries)
    except ProviderError as exc:
        if exc.retryable:
            self.retry_later(exc)
        raise
    if job is None:
        return {"status": "gone"}
    return {"status": job.status, "done": job.done, "created": job.created}


@shared_task(base=PipelineTask, name="tasks.learning.sweep_history_imports")
def sweep_history_imports() -> dict:
    """The beat: imports whose worker died go on; previews never started go, with their files."""
    return {"requeued": importing.requeue_stalled(), "dropped": importing.drop_stale_previews()}
