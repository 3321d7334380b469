"""The embedded default: Postgres (+pgvector, pg_trgm) and Redis (+FalkorDB) from PyPI wheels.

Started only when DATABASE_URL / REDIS_URL are absent; data lives under the var directory.
No app logic lives here.
"""
from __future__ import annotations

from .errors import StackError
from .postgres import postgres_url, stop_postgres
from .redis import redis_url, stop_redis

__all__ = ["StackError", "postgres_url", "redis_url", "stop_postgres", "stop_redis"]
