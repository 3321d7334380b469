"""The write path: every change to a memory is one transaction with one MemoryEvent per memory touched.

Writes for one user are serialised by a transaction-level advisory lock, so the near-duplicate check
cannot race; the partial unique index on (user, content_key) backs it up. After commit, one
`memory_changed` signal carries each change with the `memory.*` event it means (memoryapp/events.py):
graph sync and the user's open pages both listen to it; a bulk write sends one signal with its count.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from pgvector.django import CosineDistance

from memoryapp.events import MemoryEventType
from memoryapp.lib.values import differs_only_in_values, same_values
from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemorySource, MemoryStatus, user_id_of

from ..errors import MemoryConflict, MemoryValidationError
from ..sensitive import contains_sensitive
from ..text import content_key, search_context, search_tokens
from .cue_fields import cue_fields
from .signals import memory_changed
from .snapshots import snapshot
from .validation import MemoryInput, MemoryPatch, parse

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger(__name__)

MERGE_SIMILARITY = 0.9  # cosine at or above which a new memory is the same as an existing one (values equal)
_LOCK_NAMESPACE = 7301  # first key of pg_advisory_xact_lock(int, int); the second is the user id

REALTIME_EVENT: dict[
    str, MemoryEventType
] = {  # what a change means to an open page; the rest (accessed, exported) no page shows
    EventAction.CREATED: MemoryEventType.CREATED,
    EventAction.IMPORTED: MemoryEventType.CREATED,
    EventAction.UPDATED: MemoryEventType.UPDATED,
    EventAction.SUPERSEDED: MemoryEventType.UPDATED,
    EventAction.MERGED: MemoryEventType.UPDATED,
    EventAction.BOOSTED: MemoryEventType.UPDATED,
    EventAction.DEMOTED: MemoryEventType.UPDATED,
    EventAction.PROMOTED: MemoryEventType.UPDATED,
    EventAction.DELETED: MemoryEventType.DELETED,
    EventAction.PURGED: MemoryEventType.PURGED,
    EventAction.FORGOTTEN: MemoryEventType.FORGOTTEN,
    EventAction.RESTORED: MemoryEventType.RESTORED,
}


@dataclass(frozen=True)
class WriteResult:
    memory: Memory
    action: str  # the EventAction applied to `memory`: created, merged, superseded, updated...


def _embed(text: str) -> list[float]:
    from memoryapp.providers.embeddings import get_embedder

    return get_embedder().embed_one(text)


def _lock_user(user_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, user_id])


def record(
    memory: Memory, action: str, actor: str, *, before: dict | None = None, note: str = "", extra: dict | None = None
) -> MemoryEvent:
    """Write the audit row and, after commit, tell listeners. Call inside the change's transaction."""
    after = None if action == EventAction.PURGED else snapshot(memory)
    event = MemoryEvent.objects.create(
        user_id=memory.user_id,
        memory=None if action == EventAction.PURGED else memory,
        memory_ref=memory.pk,
        action=action,
        actor=actor,
        before=before,
        after=after,
        note=note[:200],
    )
    announce(memory.user_id, memory.pk, action, **(extra or {}))
    return event


def announce(user_id: int, memory_id: int | None, action: str, *, count: int = 1, **extra) -> None:
    """After commit, send the one `memory_changed` signal for a change (memory_id None: a bulk write of
    `count` memories, one `MemoryEventType.BATCH` event). Receivers never fail the writer."""
    event = MemoryEventType.BATCH if memory_id is None else REALTIME_EVENT.get(action)

    def notify() -> None:
        for receiver, result in memory_changed.send_robust(
            sender=Memory, memory_id=memory_id, user_id=user_id, action=action, event=event, count=count, **extra
        ):
            if isinstance(result, Exception):
                logger.warning("memory_changed receiver %s failed: %s", receiver, result)

    transaction.on_commit(notify)


def _current(user_id: int):
    return Memory.objects.filter(user_id=user_id, status=MemoryStatus.ACTIVE, valid_until__isnull=True)


def _near_duplicate(user_id: int, key: str, embedding: list[float]) -> Memory | None:
    same = _current(user_id).filter(content_key=key).first()
    if same is not None:
        return same
    nearest = (
        _current(user_id)
        .exclude(embedding__isnull=True)
        .annotate(distance=CosineDistance("embedding", embedding))
        .order_by("distance")
        .first()
    )
    if nearest is not None and 1 - nearest.distance >= MERGE_SIMILARITY:
        return nearest
    return None


def _merge_into(existing: Memory, data: MemoryInput, actor: str, cue_values: dict | None = None) -> WriteResult:
    before = snapshot(existing)
    existing.importance = max(existing.importance, data.importance)
    existing.confidence = max(existing.confidence, data.confidence)
    fields = ["importance", "confidence", "updated_at"]
    # The duplicate brings the situations the memory lacked (or had only inferred).
    if cue_values and data.cues and (not existing.cues or existing.cues_inferred):
        for name, value in cue_values.items():
            setattr(existing, name, value)
            fields.append(name)
    existing.save(update_fields=fields)
    record(existing, EventAction.MERGED, actor, before=before, note=f"merged a duplicate: {data.content}")
    return WriteResult(existing, EventAction.MERGED)


def _row(data: MemoryInput, key: str, start: datetime, vector, cue_values: dict) -> dict:
    """A new row's fields that follow from what is written (its words, their search forms, its vectors):
    one place for every write that creates a memory."""
    return {
        "content": data.content,
        "content_key": key,
        "kind": data.kind,
        "lifecycle": data.lifecycle,
        "importance": data.importance,
        "confidence": data.confidence,
        "valid_from": start,
        "embedding": vector,
        "search_tokens": search_tokens(data.content),
        "context": data.context,
        "search_context": search_context(data.context, start),
        **cue_values,
    }


def add_memory(
    user: AbstractBaseUser | int,
    content: str,
    *,
    kind: str = "fact",
    importance: float = 0.5,
    confidence: float = 0.8,
    lifecycle: str = "working",
    valid_from: datetime | None = None,
    source: str = MemorySource.MANUAL,
    source_conversation_id: int | None = None,
    source_message_id: int | None = None,
    actor: str = Actor.USER,
    embedding: list[float] | None = None,
    context: str = "",
    cues: list[str] | None = None,
) -> WriteResult:
    """Add a memory, or merge it into the user's current memory it duplicates (cosine >= 0.9 and the same
    numbers, codes, names and dates); one that says the same words around a new value ("flight LH2235"
    beside "flight LH2231") replaces it (`supersede_memory`: action superseded)."""
    user_id = user_id_of(user)
    data = parse(
        MemoryInput,
        {
            "content": content,
            "kind": kind,
            "importance": importance,
            "confidence": confidence,
            "lifecycle": lifecycle,
            "valid_from": valid_from,
            "context": context,
            "cues": cues or [],
        },
    )
    vector = embedding if embedding is not None else _embed(data.content)  # slow: outside the transaction
    cue_values = cue_fields(data.cues, memory=(data.content, vector))
    key = content_key(data.content)
    with transaction.atomic():
        _lock_user(user_id)
        duplicate = _near_duplicate(user_id, key, vector)
        if duplicate is not None and (duplicate.content_key == key or same_values(duplicate.content, data.content)):
            return _merge_into(duplicate, data, actor, cue_values)
        if (
            duplicate is not None
            and differs_only_in_values(duplicate.content, data.content)
            and (data.valid_from is None or data.valid_from > duplicate.valid_from)
        ):
            return supersede_memory(
                duplicate,
                data.content,
                actor=actor,
                kind=data.kind,
                importance=data.importance,
                confidence=data.confidence,
                valid_from=data.valid_from,
                source=source,
                source_conversation_id=source_conversation_id,
                source_message_id=source_message_id,
                embedding=vector,
                context=data.context,
                cues=data.cues,
            )
        start = data.valid_from or timezone.now()
        memory = Memory.objects.create(
            user_id=user_id,
            source=source,
            source_conversation_id=source_conversation_id,
            source_message_id=source_message_id,
            **_row(data, key, start, vector, cue_values),
        )
        record(memory, EventAction.IMPORTED if source == MemorySource.IMPORTED else EventAction.CREATED, actor)
        return WriteResult(memory, EventAction.CREATED)


def supersede_memory(
    old: Memory,
    content: str,
    *,
    actor: str = Actor.USER,
    kind: str | None = None,
    importance: float | None = None,
    confidence: float | None = None,
    valid_from: datetime | None = None,
    source: str | None = None,
    source_conversation_id: int | None = None,
    source_message_id: int | None = None,
    embedding: list[float] | None = None,
    context: str | None = None,
    cues: list[str] | None = None,
    keep_usage: bool = False,
) -> WriteResult:
    """Replace `old` with a new memory: old.valid_until = new.valid_from; both kept, linked both ways.
    `keep_usage`: the new version is the same memory reworded (an edit), so it keeps how often and when
    it was used; a new fact (extraction's update) starts unused. `cues` None: the old version's when the
    content is reworded (keep_usage), none for a new fact (the cue job writes its own)."""
    if cues is None:
        cues = list(old.cues) if keep_usage else []
    if context is None:  # the old version's; one kept before secrets were refused is left behind
        context = "" if contains_sensitive(old.context) else old.context
    data = parse(
        MemoryInput,
        {
            "content": content,
            "kind": kind or old.kind,
            "importance": old.importance if importance is None else importance,
            "confidence": old.confidence if confidence is None else confidence,
            "lifecycle": old.lifecycle,
            "valid_from": valid_from,
            "context": context,
            "cues": cues,
        },
    )
    vector = embedding if embedding is not None else _embed(data.content)
    same_cues = data.cues == list(old.cues)
    # An edit's cues are the person's (emptied ones too: dated, so the cue job leaves them empty); a new
    # fact without cues waits for the cue job.
    if same_cues and old.cues_inferred:  # inferred from the old words: inferred again from the new
        cue_values = cue_fields([], memory=(data.content, vector))
    else:
        cue_values = cue_fields(
            data.cues,
            old.cue_embedding if same_cues else None,
            written=old.cues_written_at if same_cues else (timezone.now() if keep_usage else None),
            memory=(data.content, vector),
        )
    key = content_key(data.content)
    with transaction.atomic():
        _lock_user(old.user_id)
        old = Memory.objects.select_for_update().get(pk=old.pk)
        if not old.is_current:
            raise MemoryConflict(f"memory {old.pk} is no longer current, so it cannot be replaced")
        start = data.valid_from or timezone.now()
        if start <= old.valid_from:
            raise MemoryValidationError("the new memory must start after the one it replaces", "valid_from")
        if key == old.content_key:  # same words: not a new fact, just new attributes
            return edit_memory(old, {"kind": data.kind, "importance": data.importance}, actor=actor)
        before = snapshot(old)
        old.valid_until = start
        old.save(update_fields=["valid_until", "updated_at"])
        try:
            with transaction.atomic():
                new = Memory.objects.create(
                    user_id=old.user_id,
                    source=source or old.source,
                    source_conversation_id=source_conversation_id or old.source_conversation_id,
                    source_message_id=source_message_id,
                    **_row(data, key, start, vector, cue_values),
                    access_count=old.access_count if keep_usage else 0,
                    last_accessed_at=old.last_accessed_at if keep_usage else None,
                )
        except IntegrityError:
            raise MemoryConflict("an identical memory is already current") from None
        new.supersedes.add(old)
        record(old, EventAction.SUPERSEDED, actor, before=before, note=f"replaced by #{new.pk}")
        record(new, EventAction.CREATED, actor, note=f"replaces #{old.pk}")
        return WriteResult(new, EventAction.SUPERSEDED)


def _versions(current: Memory) -> list[Memory]:
    """`current` and the versions it replaced, directly or through others, oldest first."""
    chain, frontier = {current.pk: current}, [current]
    while frontier:
        older = Memory.objects.filter(superseded_by__in=[m.pk for m in frontier]).exclude(pk__in=chain)
        frontier = list(older.distinct())
        chain.update((m.pk, m) for m in frontier)
    return sorted(chain.values(), key=lambda m: (m.valid_from, m.pk))


def add_past_version(
    current: Memory,
    content: str,
    *,
    valid_from: datetime,
    actor: str = Actor.EXTRACTOR,
    kind: str | None = None,
    importance: float | None = None,
    confidence: float | None = None,
    source: str | None = None,
    source_conversation_id: int | None = None,
    source_message_id: int | None = None,
    embedding: list[float] | None = None,
    context: str = "",
) -> WriteResult:
    """A statement that `current` replaces, learnt after it (an older turn that arrives later: another
    program's history, an export): it becomes the past version it is, true from `valid_from` until the
    next version began, and `current` stays current. Where it falls inside an older version's time, that
    version now ends when it begins. A version already saying the same words is left as it is (unchanged)."""
    data = parse(
        MemoryInput,
        {
            "content": content,
            "kind": kind or current.kind,
            "importance": current.importance if importance is None else importance,
            "confidence": current.confidence if confidence is None else confidence,
            "lifecycle": current.lifecycle,
            "valid_from": valid_from,
            "context": context,
            "cues": [],
        },
    )
    vector = embedding if embedding is not None else _embed(data.content)
    cue_values = cue_fields([], memory=(data.content, vector))
    key = content_key(data.content)
    start = data.valid_from or valid_from
    with transaction.atomic():
        _lock_user(current.user_id)
        current = Memory.objects.select_for_update().get(pk=current.pk)
        versions = _versions(current)
        same = next((v for v in versions if v.content_key == key), None)
        if same is not None:
            return WriteResult(same, "unchanged")
        later = next((v for v in versions if v.valid_from > start), None)
        if later is None:  # not older than the current version after all: an ordinary replacement
            return supersede_memory(
                current,
                data.content,
                actor=actor,
                kind=data.kind,
                importance=data.importance,
                confidence=data.confidence,
                valid_from=start,
                source=source,
                source_conversation_id=source_conversation_id,
                source_message_id=source_message_id,
                embedding=vector,
                context=data.context,
            )
        earlier = next((v for v in reversed(versions) if v.valid_from < start), None)
        new = Memory.objects.create(
            user_id=current.user_id,
            valid_until=later.valid_from,
            source=source or current.source,
            source_conversation_id=source_conversation_id,
            source_message_id=source_message_id,
            **_row(data, key, start, vector, cue_values),
        )
        later.supersedes.add(new)
        if earlier is not None and earlier.valid_until is not None and earlier.valid_until > start:
            before = snapshot(earlier)
            earlier.valid_until = start
            earlier.save(update_fields=["valid_until", "updated_at"])
            later.supersedes.remove(earlier)
            new.supersedes.add(earlier)
            record(earlier, EventAction.SUPERSEDED, actor, before=before, note=f"replaced by #{new.pk}")
        record(new, EventAction.CREATED, actor, note=f"an earlier version of #{later.pk}, replaced by it")
        return WriteResult(new, EventAction.SUPERSEDED)


def replace_with(older: Memory, newer: Memory, *, actor: str = Actor.USER) -> WriteResult:
    """The user says `newer`, already a memory, replaces `older`: older ends when newer began (or now, when
    newer is not later), and the two are linked as a supersede is."""
    with transaction.atomic():
        _lock_user(older.user_id)
        older = Memory.objects.select_for_update().get(pk=older.pk)
        newer = Memory.objects.select_for_update().get(pk=newer.pk, user_id=older.user_id)
        if not (older.is_current and newer.is_current):
            raise MemoryConflict("one of the two memories is no longer current, so nothing was replaced")
        before = snapshot(older)
        older.valid_until = newer.valid_from if newer.valid_from > older.valid_from else timezone.now()
        older.save(update_fields=["valid_until", "updated_at"])
        newer.supersedes.add(older)
        record(older, EventAction.SUPERSEDED, actor, before=before, note=f"replaced by #{newer.pk}")
        return WriteResult(newer, EventAction.SUPERSEDED)


def edit_memory(memory: Memory, changes: dict, *, actor: str = Actor.USER) -> WriteResult:
    """Change attributes in place; a change of content is a supersede (the old wording stays in history)."""
    patch = parse(MemoryPatch, changes)
    if patch.content is not None and content_key(patch.content) != memory.content_key:
        return supersede_memory(
            memory,
            patch.content,
            actor=actor,
            kind=patch.kind,
            importance=patch.importance,
            cues=patch.cues,
            keep_usage=True,
        )
    updates = {k: v for k, v in patch.model_dump(exclude_none=True).items() if k != "content"}
    if "cues" in updates and updates["cues"] == list(memory.cues):
        del updates["cues"]
    # New cues: their vector is computed before the transaction (slow); emptied cues are the person's
    # choice, dated so the cue job does not write them again.
    cue_values = cue_fields(updates["cues"], written=timezone.now()) if "cues" in updates else {}
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        changed = [k for k, v in updates.items() if getattr(memory, k) != v]
        if not changed:
            return WriteResult(memory, "unchanged")
        before = snapshot(memory)
        for field in changed:
            setattr(memory, field, updates[field])
        if "cues" in changed:
            for name, value in cue_values.items():
                setattr(memory, name, value)
            changed = [*changed, *(name for name in cue_values if name != "cues")]
        memory.save(update_fields=[*changed, "updated_at"])
        record(memory, EventAction.UPDATED, actor, before=before)
        return WriteResult(memory, EventAction.UPDATED)


def boost_memory(memory: Memory, *, by: float = 0.1, actor: str = Actor.EXTRACTOR) -> WriteResult:
    """Seen again: raise importance (capped at 1)."""
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        before = snapshot(memory)
        memory.importance = min(1.0, memory.importance + by)
        memory.save(update_fields=["importance", "updated_at"])
        record(memory, EventAction.BOOSTED, actor, before=before)
        return WriteResult(memory, EventAction.BOOSTED)


def set_importance(memory: Memory, importance: float, *, action: str, actor: str, note: str = "") -> WriteResult:
    """Lower or raise importance as the forgetting job decides (DEMOTED / PROMOTED)."""
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        before = snapshot(memory)
        memory.importance = max(0.0, min(1.0, importance))
        fields = ["importance", "updated_at"]
        if action == EventAction.PROMOTED:
            memory.lifecycle = "core"
            fields.append("lifecycle")
        memory.save(update_fields=fields)
        record(memory, action, actor, before=before, note=note)
        return WriteResult(memory, action)


def _set_status(memory: Memory, status: str, action: str, actor: str, note: str = "") -> WriteResult:
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        if memory.status == status:
            return WriteResult(memory, "unchanged")
        before = snapshot(memory)
        memory.status = status
        try:
            with transaction.atomic():
                memory.save(update_fields=["status", "updated_at"])
        except IntegrityError:
            raise MemoryConflict("an identical memory is already active; delete that one first") from None
        record(memory, action, actor, before=before, note=note)
        return WriteResult(memory, action)


def delete_memory(memory: Memory, *, actor: str = Actor.USER, note: str = "") -> WriteResult:
    """Soft delete: hidden from recall, restorable, history kept."""
    return _set_status(memory, MemoryStatus.DELETED, EventAction.DELETED, actor, note)


def forget_memory(memory: Memory, *, actor: str = Actor.FORGETTING, note: str = "") -> WriteResult:
    return _set_status(memory, MemoryStatus.FORGOTTEN, EventAction.FORGOTTEN, actor, note)


def restore_memory(memory: Memory, *, actor: str = Actor.USER) -> WriteResult:
    return _set_status(memory, MemoryStatus.ACTIVE, EventAction.RESTORED, actor)


def delete_all(user_id: int, *, actor: str = Actor.USER) -> list[int]:
    """Clear all: soft-delete every current memory of the user, in one transaction with one MemoryEvent per
    memory and one `MemoryEventType.BATCH` event for the lot (an open page hears once, not once per memory);
    returns their ids, for an undo (`restore_many`)."""
    with transaction.atomic():
        _lock_user(user_id)
        rows = list(_current(user_id).select_for_update().order_by("pk"))
        _set_status_of_many(user_id, rows, MemoryStatus.DELETED, EventAction.DELETED, actor)
    return [memory.pk for memory in rows]


def restore_many(user_id: int, ids: list[int], *, actor: str = Actor.USER) -> list[int]:
    """Undo a clear all: restore those of `ids` that are the user's and still deleted, with one BATCH event;
    returns the ids restored. One whose words are current again (added meanwhile) stays deleted: that copy is
    kept, as `restore_memory` refuses it."""
    with transaction.atomic():
        _lock_user(user_id)
        rows = list(
            Memory.objects.select_for_update()
            .filter(user_id=user_id, pk__in=ids, status=MemoryStatus.DELETED)
            .order_by("pk")
        )
        taken = set(_current(user_id).values_list("content_key", flat=True))
        restorable = []
        for memory in rows:
            if memory.valid_until is None:  # only a current version must be the one copy of its words
                if memory.content_key in taken:
                    continue
                taken.add(memory.content_key)
            restorable.append(memory)
        _set_status_of_many(user_id, restorable, MemoryStatus.ACTIVE, EventAction.RESTORED, actor)
    return [memory.pk for memory in restorable]


def _set_status_of_many(user_id: int, rows: list[Memory], status: str, action: str, actor: str) -> None:
    """`_set_status` for many rows of one user, locked by the caller: one MemoryEvent each, one BATCH event."""
    if not rows:
        return
    now = timezone.now()
    before = [snapshot(memory) for memory in rows]
    for memory in rows:
        memory.status, memory.updated_at = status, now
    Memory.objects.filter(pk__in=[memory.pk for memory in rows]).update(status=status, updated_at=now)
    MemoryEvent.objects.bulk_create(
        [
            MemoryEvent(
                user_id=user_id,
                memory=memory,
                memory_ref=memory.pk,
                action=action,
                actor=actor,
                before=old,
                after=snapshot(memory),
            )
            for memory, old in zip(rows, before)
        ]
    )
    announce(user_id, None, action, count=len(rows))


def revert_memory(memory: Memory, *, actor: str = Actor.USER) -> WriteResult:
    """Undo a learnt memory: soft-delete it and make current again what it had replaced."""
    with transaction.atomic():
        result = delete_memory(memory, actor=actor)
        for old in memory.supersedes.select_for_update().filter(valid_until__isnull=False):
            before = snapshot(old)
            old.valid_until = None
            try:
                with transaction.atomic():
                    old.save(update_fields=["valid_until", "updated_at"])
            except IntegrityError:
                continue  # an identical memory became current meanwhile: keep that one
            record(old, EventAction.RESTORED, actor, before=before, note=f"#{memory.pk} was undone")
        return result
