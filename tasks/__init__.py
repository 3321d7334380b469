"""Celery tasks, one module per job: load by id, call the engine, publish."""
from .health import ping  # noqa: F401
