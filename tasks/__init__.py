"""Celery tasks, one module per job: load by id, call the engine, publish."""

from .graph_sync import drain_pending, purge_episode, sync_memory  # noqa: F401
from .health import ping  # noqa: F401
