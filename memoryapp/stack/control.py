"""Start and stop the embedded servers the settings point at (memoryapp/stack), and only those:
a DATABASE_URL or REDIS_URL from the environment is someone else's server."""

from __future__ import annotations

from django.conf import settings

from memoryapp import stack


def start_embedded() -> None:
    stack.start(
        settings.VAR_DIR,
        postgres=settings.EMBEDDED_POSTGRES,
        redis=settings.REDIS_URL if settings.EMBEDDED_REDIS else None,
        postgres_memory_share=settings.POSTGRES_MEMORY_SHARE,
    )


def stop_embedded() -> None:
    stack.stop(settings.VAR_DIR, postgres=settings.EMBEDDED_POSTGRES, redis=settings.EMBEDDED_REDIS)


def embedded_server_stopped(*, postgres: bool) -> bool:
    """Whether the database (`postgres`) or Redis is the embedded one and is not running."""
    if postgres:
        return settings.EMBEDDED_POSTGRES and not stack.postgres_running(settings.VAR_DIR)
    return settings.EMBEDDED_REDIS and not stack.redis_running(settings.VAR_DIR)
