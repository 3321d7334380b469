"""The Celery app; configuration comes from Django settings under the CELERY_ prefix."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")

app = Celery("memoryapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Jobs live in the top-level `tasks` package, one module per job.
app.autodiscover_tasks(["tasks"], related_name=None)


@worker_process_init.connect
def _warm_up(**kwargs) -> None:
    from django.conf import settings
    from threadpoolctl import threadpool_limits

    from memoryapp.engine.warmup import warm_embedder

    # Background work behind the pages: a lower priority, and numpy's BLAS on one thread (a second one
    # spins waiting on the core the web process needs, and made the import no faster).
    if settings.WORKER_NICENESS:
        os.nice(settings.WORKER_NICENESS)
    threadpool_limits(1)
    warm_embedder()
