"""The base class of the pipeline's tasks: a task that gives up leaves a FailedTask row an admin can re-run.

Retries raise `Retry`, which is not a failure; only the final give-up reaches `on_failure`. A later
success of the same task with the same arguments marks the old failures resolved.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.contrib.django.task import DjangoTask
from celery.utils.time import get_exponential_backoff_interval
from django.utils import timezone

log = logging.getLogger(__name__)


class PipelineTask(DjangoTask):  # DjangoTask adds delay_on_commit
    acks_late = True  # every pipeline task is idempotent, so a redelivery after a crash is safe
    reject_on_worker_lost = True
    # Model and transport hiccups: retried with Celery's exponential backoff (up to 5, 10, 20, 40 s,
    # full jitter) before the task gives up.
    max_retries = 4
    retry_backoff = 5
    retry_backoff_max = 300
    retry_jitter = True

    def retry_later(self, exc: Exception) -> None:
        """Retry after Celery's backoff, or re-raise once retries run out. Not `autoretry_for`: whether a
        ProviderError is worth retrying is its `retryable` flag, not its type."""
        if self.request.retries >= self.max_retries:
            raise exc
        countdown = get_exponential_backoff_interval(
            self.retry_backoff, self.request.retries, self.retry_backoff_max, self.retry_jitter
        )
        raise self.retry(exc=exc, countdown=countdown) from exc

    def on_failure(self, exc: BaseException, task_id: str, args: tuple, kwargs: dict, einfo: Any) -> None:
        from memoryapp.pipeline.models import FailedTask

        try:
            FailedTask.objects.create(
                task_name=self.name,
                task_id=task_id or "",
                args=list(args),
                kwargs=dict(kwargs),
                error=f"{type(exc).__name__}: {exc}"[:5000],
                traceback=str(einfo or "")[:20000],
            )
        except Exception:  # the database is the thing that failed: the worker log keeps the record
            log.exception("could not record the failure of %s%r", self.name, args)

    def on_success(self, retval: Any, task_id: str, args: tuple, kwargs: dict) -> None:
        from memoryapp.pipeline.models import FailedTask

        FailedTask.objects.filter(
            task_name=self.name, args=list(args), kwargs=dict(kwargs), resolved_at__isnull=True
        ).update(resolved_at=timezone.now())


def rerun(failed: Any) -> str:
    """Queue a failed task again with its original arguments; returns the new task id."""
    from memoryapp.celery import app

    return app.send_task(failed.task_name, args=failed.args, kwargs=failed.kwargs).id
