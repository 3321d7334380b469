from __future__ import annotations

from celery import shared_task


@shared_task(name="tasks.ping")
def ping() -> str:
    """A round trip through the broker; used by health checks and the stack test."""
    return "pong"
