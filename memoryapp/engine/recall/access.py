"""Access counts, off the hot path: recall adds ids to a Redis hash; `flush_access` applies them to
Postgres in one statement per batch (the beat schedule runs it every minute).

A chat notes the memories it handed the model with the conversation's id, so a memory's history can say
"used in a chat" and which one. Hash fields are "memory id" or "memory id:conversation id"."""

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


def note_access(memory_ids: list[int], *, conversation_id: int | None = None) -> None:
    """Count a use of each memory (in the chat `conversation_id`, when given), in the background; a Redis
    hiccup loses counts, never a recall."""
    if memory_ids:
        suffix = f":{conversation_id}" if conversation_id else ""
        _executor.submit(_increment, [f"{memory_id}{suffix}" for memory_id in memory_ids])


def _increment(fields: list[str]) -> None:
    try:
        pipe = _redis().pipeline(transaction=False)
        for field in fields:
            pipe.hincrby(PENDING_KEY, field, 1)
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
    counts: dict[int, int] = {}
    chats: dict[int, list[int]] = {}
    for field, n in client.hgetall(batch_key).items():
        memory_id, _, conversation_id = (field.decode() if isinstance(field, bytes) else field).partition(":")
        counts[int(memory_id)] = counts.get(int(memory_id), 0) + int(n)
        if conversation_id:
            chats.setdefault(int(memory_id), []).append(int(conversation_id))
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
            MemoryEvent.objects.bulk_create(
                [
                    MemoryEvent(
                        user_id=user_id,
                        memory_id=memory_id,
                        memory_ref=memory_id,
                        action=EventAction.ACCESSED,
                        actor=Actor.SYSTEM,
                        after={"uses": n, "conversations": sorted(chats.get(memory_id, []))},
                        created_at=now,
                    )
                    for memory_id, user_id, n in touched
                ]
            )
    client.delete(batch_key)
    return len(counts)
