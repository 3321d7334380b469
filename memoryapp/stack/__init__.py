"""The embedded default: Postgres (+pgvector, pg_trgm) and Redis (+FalkorDB) from PyPI wheels.

Used only when DATABASE_URL / REDIS_URL are absent; data lives under the var directory. Settings only
name the servers (`postgres_url`, `redis_url`); they start where the user asked for them: `./run`
(`manage.py up`), `manage.py stack start`, the test suite and the benchmarks (`start`).
No app logic lives here.
"""

from __future__ import annotations

from pathlib import Path

from .errors import StackError
from .postgres import postgres_running, postgres_url, start_postgres, stop_postgres
from .redis import redis_running, redis_url, start_redis, stop_redis

NOT_RUNNING = "the embedded servers are not running: start them with ./run (or manage.py stack start)"

__all__ = [
    "NOT_RUNNING",
    "StackError",
    "postgres_running",
    "postgres_url",
    "redis_running",
    "redis_url",
    "start",
    "start_postgres",
    "start_redis",
    "stop",
    "stop_postgres",
    "stop_redis",
]


def start(var_dir: Path, *, postgres: bool, redis: str | None, postgres_memory_share: float = 0.0) -> None:
    """Start the embedded servers the settings use: Postgres when `postgres` (its memory settings sized to
    `postgres_memory_share` of the machine's), Redis at the URL `redis`."""
    if redis:
        start_redis(var_dir, redis)
    if postgres:
        start_postgres(var_dir, postgres_memory_share)


def stop(var_dir: Path, *, postgres: bool, redis: bool) -> None:
    if redis:
        stop_redis(var_dir)
    if postgres:
        stop_postgres(var_dir)
