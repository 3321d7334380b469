"""The Celery app; configuration comes from Django settings under the CELERY_ prefix."""
from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")

app = Celery("memoryapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Jobs live in the top-level `tasks` package, one module per job.
app.autodiscover_tasks(["tasks"], related_name=None)
