"""The bulk write path, for imports and benchmarks: validated rows in, embedded in batches, one
transaction per batch. Exact duplicates (by content_key, within the batch or against current memories)
are skipped and reported. No per-memory signal: one `memory_changed` for the whole write (a
`MemoryEventType.BATCH` event with its count, after commit); graph sync leaves the new rows pending for its drain.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction
from django.utils import timezone

from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemorySource, MemoryStatus

from ..text import content_key, search_context, search_tokens
from .cue_fields import cue_fields, embed_cues
from .snapshots import snapshot
from .validation import MemoryInput
from .write import _lock_user, announce


def bulk_add(
    user_id: int,
    items: Sequence[MemoryInput],
    *,
    source: str = MemorySource.IMPORTED,
    actor: str = Actor.SYSTEM,
    batch_size: int = 256,
    embeddings: Sequence[list[float]] | None = None,
    cue_embeddings: Sequence[list[float] | None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Memory | None]:
    """Write `items`; returns, per item, the new Memory or None where it duplicated one. `embeddings`,
    `cue_embeddings`: the contents' and the cues' vectors when already computed (None: no cues)."""
    from memoryapp.providers.embeddings import get_embedder

    results: list[Memory | None] = []
    seen: set[str] = set()
    action = EventAction.IMPORTED if source == MemorySource.IMPORTED else EventAction.CREATED
    for start in range(0, len(items), batch_size):
        batch = items[start:start + batch_size]
        vectors = (embeddings[start:start + batch_size] if embeddings is not None
                   else get_embedder().embed([item.content for item in batch]))
        cue_vectors = (cue_embeddings[start:start + batch_size] if cue_embeddings is not None
                       else embed_cues([item.cues for item in batch]))
        keys = [content_key(item.content) for item in batch]
        with transaction.atomic():
            _lock_user(user_id)
            existing = set(
                Memory.objects.filter(user_id=user_id, status=MemoryStatus.ACTIVE, valid_until__isnull=True,
                                      content_key__in=keys).values_list("content_key", flat=True)
            )
            rows, positions = [], []
            for position, (item, key, vector, cue_vector) in enumerate(zip(batch, keys, vectors, cue_vectors)):
                if key in existing or key in seen:
                    continue
                seen.add(key)
                positions.append(position)
                valid_from = item.valid_from or timezone.now()
                rows.append(Memory(
                    user_id=user_id, content=item.content, content_key=key, kind=item.kind,
                    lifecycle=item.lifecycle, importance=item.importance, confidence=item.confidence,
                    valid_from=valid_from, source=source, embedding=vector, search_tokens=search_tokens(item.content),
                    context=item.context, search_context=search_context(item.context, valid_from),
                    **cue_fields(item.cues, cue_vector),
                ))
            created = Memory.objects.bulk_create(rows)
            MemoryEvent.objects.bulk_create([
                MemoryEvent(user_id=user_id, memory=m, memory_ref=m.pk, action=action, actor=actor,
                            after=snapshot(m)) for m in created
            ])
        by_position = dict(zip(positions, created))
        results.extend(by_position.get(i) for i in range(len(batch)))
        if progress:
            progress(min(start + batch_size, len(items)), len(items))
    written = sum(1 for memory in results if memory is not None)
    if written:
        announce(user_id, None, action, count=written)
    return results
