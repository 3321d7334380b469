"""Access counts and read records, off the hot path: recall adds ids to a Redis hash; `flush_access` applies
them to Postgres in one statement per batch (the beat schedule runs it every minute).

A chat notes the memories it handed the model with the conversation's id, so a memory's history can say
"used in a chat" and which one. A program (an OAuth app or a personal token, memoryapp/lib/clients.py) that
reads memories through the API or MCP is noted with its client: a search or a fetch by id is a use, and
counts; a listing, an export or a history is a read, which the history shows but which does not count as
use (a program that syncs every memory would otherwise keep them all from being forgotten).

Hash fields are "memory id|conversation id|client|u" (u: a use, r: a read); `ACCESS_RECORD_DAYS` after it
was made, a read record goes (`drop_old_read_records`, nightly); all of a memory's go when it is purged."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

import redis
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memoryapp.lib.clients import current_client
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
    """Count a use of each memory (in the chat `conversation_id`, when given; by the request's program, when
    one), in the background; a Redis hiccup loses counts, never a recall."""
    _note(memory_ids, conversation_id, current_client(), USE)


def note_reads(memory_ids: list[int]) -> None:
    """Record that the request's program read these memories without counting a use; nothing for the app's
    own pages (no program)."""
    client = current_client()
    if client:
        _note(memory_ids, None, client, READ)


USE, READ = "u", "r"


def _note(memory_ids: list[int], conversation_id: int | None, client: str, kind: str) -> None:
    if memory_ids:
        suffix = f"|{conversation_id or ''}|{client}|{kind}"
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


@dataclass
class _Tally:
    uses: int = 0
    reads: int = 0
    conversations: list[int] = field(default_factory=list)


def _parse(raw: bytes | str) -> tuple[int, int | None, str, str]:
    """A hash field: memory id, conversation id, client, kind. A field of the form before programs were
    recorded ("id" or "id:conversation id", left pending across an upgrade) is a use by no program."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    if "|" not in text:
        memory_id, _, conversation_id = text.partition(":")
        return int(memory_id), int(conversation_id) if conversation_id else None, "", USE
    memory_id, conversation_id, client, kind = text.split("|", 3)
    return int(memory_id), int(conversation_id) if conversation_id else None, client, kind


def flush_access() -> int:
    """Move pending counts into Memory rows and the history (one ACCESSED event per memory and program);
    returns how many memories were touched."""
    client = _redis()
    batch_key = f"{PENDING_KEY}:flushing"
    try:
        client.rename(PENDING_KEY, batch_key)
    except redis.ResponseError:  # nothing pending
        return 0
    tallies: dict[tuple[int, str], _Tally] = {}
    for raw, n in client.hgetall(batch_key).items():
        memory_id, conversation_id, program, kind = _parse(raw)
        tally = tallies.setdefault((memory_id, program), _Tally())
        if kind == READ:
            tally.reads += int(n)
        else:
            tally.uses += int(n)
        if conversation_id:
            tally.conversations.append(conversation_id)
    uses: dict[int, int] = {}
    for (memory_id, _), tally in tallies.items():
        if tally.uses:
            uses[memory_id] = uses.get(memory_id, 0) + tally.uses
    touched = {memory_id for memory_id, _ in tallies}
    if touched:
        now = timezone.now()
        with transaction.atomic(), connection.cursor() as cursor:
            if uses:
                cursor.execute(
                    """UPDATE memoryapp_memory m SET access_count = m.access_count + c.n, last_accessed_at = %s
                       FROM unnest(%s::bigint[], %s::int[]) AS c(id, n) WHERE m.id = c.id""",
                    [now, list(uses), list(uses.values())],
                )
            cursor.execute("SELECT id, user_id FROM memoryapp_memory WHERE id = ANY(%s)", [list(touched)])
            owners = dict(cursor.fetchall())  # a memory purged since it was read has none: no record
            MemoryEvent.objects.bulk_create(
                [
                    MemoryEvent(
                        user_id=owners[memory_id],
                        memory_id=memory_id,
                        memory_ref=memory_id,
                        action=EventAction.ACCESSED,
                        actor=Actor.API if program else Actor.SYSTEM,
                        client=program,
                        after=_after(tally),
                        created_at=now,
                    )
                    for (memory_id, program), tally in tallies.items()
                    if memory_id in owners
                ]
            )
    client.delete(batch_key)
    return len(touched)


def _after(tally: _Tally) -> dict:
    after: dict = {"uses": tally.uses, "conversations": sorted(tally.conversations)}
    if tally.reads:
        after["reads"] = tally.reads
    return after


def drop_old_read_records() -> int:
    """Delete read records (ACCESSED events) older than ACCESS_RECORD_DAYS; how many went."""
    cutoff = timezone.now() - timedelta(days=settings.ACCESS_RECORD_DAYS)
    return MemoryEvent.objects.filter(action=EventAction.ACCESSED, created_at__lt=cutoff).delete()[0]
