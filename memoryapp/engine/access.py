"""Access counts, off the hot path: recall adds ids to a Redis hash; `flush_access` applies them to
Postgres in one statement per batch (the beat schedule runs it every minute)."""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import redis
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memoryapp.models import Actor, EventAction, MemoryEvent

logger = logging.getLogger(__name__)
PENDING_KEY = "memoryapp:access:pending"
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="access")
_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _client


def note_access(memory_ids: list[int]) -> None:
    """Count a use of each memory, in the background; a Redis hiccup loses counts, never a recall."""
    if memory_ids:
        _executor.submit(_increment, list(memory_ids))


def _increment(memory_ids: list[int]) -> None:
    try:
        pipe = _redis().pipeline(transaction=False)
        for memory_id in memory_ids:
            pipe.hincrby(PENDING_KEY, str(memory_id), 1)
        pipe.execute()
    except redis.RedisError as exc:
        logger.warning("access counts not recorded: %s", exc)


def wait_for_pending_notes() -> None:
    """Let queued notes reach Redis (tests and shutdown)."""
    _executor.submit(lambda: None).result(timeout=5)


def flush_access() -> int:
    """Move pending counts into Memory rows; returns how many memories were touched."""
    client = _redis()
    batch_key = f"{PENDING_KEY}:flushing"
    try:
        client.rename(PENDING_KEY, batch_key)
    except redis.ResponseError:  # nothing pending
        return 0
    counts = {int(k): int(v) for k, v in client.hgetall(batch_key).items()}
    if counts:
        now = timezone.now()
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                """UPDATE memoryapp_memory m SET access_count = m.access_count + c.n, last_accessed_at = %s
                   FROM unnest(%s::bigint[], %s::int[]) AS c(id, n) WHERE m.id = c.id
                   RETURNING m.id, m.user_id, c.n""",
                [now, list(counts), list(counts.values())],
            )
            touched = cursor.fetchall()
            MemoryEvent.objects.bulk_create([
                MemoryEvent(user_id=user_id, memory_id=memory_id, memory_ref=memory_id, action=EventAction.ACCESSED,
                            actor=Actor.SYSTEM, after={"uses": n}, created_at=now)
                for memory_id, user_id, n in touched
            ])
    client.delete(batch_key)
    return len(counts)
