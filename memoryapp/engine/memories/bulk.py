"""The batch path for many memories at once: imports, re-embedding, benchmarks.

`embedded_batches` is the one loop: it cuts the work into batches, embeds each batch in one call (the
next batch is embedded on a thread while the caller writes this one: the model and the database each
keep a core busy) and reports progress after each batch is written. `bulk_add` writes through it:
validated rows in, one COPY of memories and one of their history rows per batch (copy_rows.py), exact
duplicates (by content_key, within the write or against current memories) skipped and reported. No
per-memory signal: one `memory_changed` for the whole write (a `MemoryEventType.BATCH` event with its
count, after commit); graph sync leaves the new rows pending for its drain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from django.db import transaction
from django.utils import timezone

from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemorySource, MemoryStatus
from memoryapp.providers.embeddings.base import Embedder

from ..learned.situations import Inferred, infer
from ..text import content_key, search_context, search_tokens
from .copy_rows import copy_insert
from .cue_fields import cue_fields, embed_cues, inferred_fields
from .snapshots import snapshot
from .validation import MemoryInput
from .write import _lock_user, announce

BATCH = 256  # rows embedded and written at a time: one model call and two COPYs each
Item = TypeVar("Item")
Vector = list[float]
Progress = Callable[[int, int], None]


def embedded_batches(
    items: Sequence[Item],
    texts: Callable[[Sequence[Item]], list[str]],
    *,
    embedder: Embedder | None = None,
    embeddings: Sequence[Vector] | None = None,
    batch_size: int = BATCH,
    progress: Progress | None = None,
) -> Iterator[tuple[Sequence[Item], list[Vector]]]:
    """Each batch of `items` with its vectors: `embeddings[i]` where given, else `embedder` (the configured
    one by default) on `texts(batch)`. `progress(done, total)` runs once the caller is back for the next batch,
    that is, once it has written this one."""
    starts = range(0, len(items), batch_size)
    if embeddings is not None:
        for start in starts:
            yield items[start : start + batch_size], list(embeddings[start : start + batch_size])
            if progress:
                progress(min(start + batch_size, len(items)), len(items))
        return
    if embedder is None:
        from memoryapp.providers.embeddings import get_embedder

        embedder = get_embedder()

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-ahead") as ahead:

        def embed(start: int) -> Future:
            # `texts` may read the database: here, on the caller's connection (a thread has its own, outside
            # the caller's transaction); only the model runs on the thread.
            return ahead.submit(embedder.embed, texts(items[start : start + batch_size]))

        pending: Future | None = embed(0) if items else None
        for start in starts:
            assert pending is not None  # one batch is always ahead of the loop
            vectors = pending.result()
            following = start + batch_size
            pending = embed(following) if following < len(items) else None
            yield items[start:following], vectors
            if progress:
                progress(min(following, len(items)), len(items))


def bulk_add(
    user_id: int,
    items: Sequence[MemoryInput],
    *,
    source: str = MemorySource.IMPORTED,
    actor: str = Actor.SYSTEM,
    batch_size: int = BATCH,
    embeddings: Sequence[Vector] | None = None,
    cue_embeddings: Sequence[Vector | None] | None = None,
    progress: Progress | None = None,
) -> list[Memory | None]:
    """Write `items`; returns, per item, the new Memory or None where it duplicated one. `embeddings`,
    `cue_embeddings`: the contents' and the cues' vectors when already computed (None: no cues). Each batch
    is one transaction (savepoints, inside a caller's: an import wraps them all in one)."""
    results: list[Memory | None] = []
    seen: set[str] = set()
    action = EventAction.IMPORTED if source == MemorySource.IMPORTED else EventAction.CREATED
    batches = embedded_batches(
        items,
        lambda batch: [item.content for item in batch],
        embeddings=embeddings,
        batch_size=batch_size,
        progress=progress,
    )
    for batch, vectors in batches:
        start = len(results)
        cue_vectors = (
            list(cue_embeddings[start : start + len(batch)])
            if cue_embeddings is not None
            else embed_cues([item.cues for item in batch])
        )
        results.extend(
            _write_batch(user_id, batch, vectors, cue_vectors, seen, source=source, actor=actor, action=action)
        )
    written = sum(1 for memory in results if memory is not None)
    if written:
        announce(user_id, None, action, count=written)
    return results


def _write_batch(
    user_id: int,
    batch: Sequence[MemoryInput],
    vectors: list[Vector],
    cue_vectors: list[Vector | None],
    seen: set[str],
    *,
    source: str,
    actor: str,
    action: str,
) -> list[Memory | None]:
    keys = [content_key(item.content) for item in batch]
    with transaction.atomic():
        _lock_user(user_id)
        existing = set(
            Memory.objects.filter(
                user_id=user_id, status=MemoryStatus.ACTIVE, valid_until__isnull=True, content_key__in=keys
            ).values_list("content_key", flat=True)
        )
        rows, positions = [], []
        guesses = infer(
            [None if item.cues else vector for item, vector in zip(batch, vectors)], [i.content for i in batch]
        )
        for position, (item, key, vector, cue_vector, inferred) in enumerate(
            zip(batch, keys, vectors, cue_vectors, guesses)
        ):
            if key in existing or key in seen:
                continue
            seen.add(key)
            positions.append(position)
            valid_from = item.valid_from or timezone.now()
            rows.append(
                Memory(
                    user_id=user_id,
                    content=item.content,
                    content_key=key,
                    kind=item.kind,
                    lifecycle=item.lifecycle,
                    importance=item.importance,
                    confidence=item.confidence,
                    valid_from=valid_from,
                    source=source,
                    embedding=vector,
                    search_tokens=search_tokens(item.content),
                    context=item.context,
                    search_context=search_context(item.context, valid_from),
                    **(cue_fields(item.cues, cue_vector) if item.cues else _inferred_or_none(inferred)),
                )
            )
        created = copy_insert(rows)
        copy_insert(
            [
                MemoryEvent(user_id=user_id, memory=m, memory_ref=m.pk, action=action, actor=actor, after=snapshot(m))
                for m in created
            ]
        )
    by_position = dict(zip(positions, created))
    return [by_position.get(i) for i in range(len(batch))]


def _inferred_or_none(inferred: Inferred | None) -> dict:
    """The fields of a memory written without cues: the bank's, when it found any (one call per batch)."""
    return inferred_fields(inferred) if inferred is not None else cue_fields([])
