"""The write path on the real Postgres: supersede chains, merges, soft delete, audit, validation."""

from __future__ import annotations

import math
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memoryapp.engine.errors import MemoryConflict, MemoryValidationError
from memoryapp.engine.memories import purge, write
from memoryapp.engine.memories.bulk import bulk_add
from memoryapp.engine.memories.validation import MemoryInput
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY
from memoryapp.models import EventAction, Memory, MemoryEvent, MemoryStatus

pytestmark = pytest.mark.django_db

ALL = RECALL_POSTGRES_ONLY.model_copy(update={"limit": 10})


def _events(memory_id: int) -> list[str]:
    return list(
        MemoryEvent.objects.filter(memory_ref=memory_id).order_by("created_at", "id").values_list("action", flat=True)
    )


def test_it_records_a_created_event_with_the_memory(alice):
    memory = write.add_memory(alice, "I like green tea", kind="preference").memory
    assert memory.embedding is not None and "tea" in memory.search_tokens
    assert _events(memory.pk) == ["created"]


def test_it_supersedes_vue_with_react_and_keeps_both_in_history(alice):
    start = timezone.now() - timedelta(days=10)
    vue = write.add_memory(alice, "I like Vue 3 for frontend work", kind="preference", valid_from=start).memory
    react = write.supersede_memory(vue, "I now prefer React for frontend work").memory
    vue.refresh_from_db()

    assert vue.valid_until == react.valid_from and list(react.supersedes.all()) == [vue]
    assert list(vue.superseded_by.all()) == [react]
    now = recall(alice, "which frontend framework do I like", config=ALL)
    assert [m.pk for m in now.memories] == [react.pk]
    history = recall(alice, "which frontend framework do I like", config=ALL, include_history=True)
    assert {m.pk for m in history.memories} == {vue.pk, react.pk}
    before = recall(alice, "which frontend framework do I like", config=ALL, at=start + timedelta(days=1))
    assert [m.pk for m in before.memories] == [vue.pk]
    assert _events(vue.pk) == ["created", "superseded"]


def test_it_treats_an_edit_of_content_as_a_supersede(alice):
    memory = write.add_memory(alice, "I live in Berlin").memory
    result = write.edit_memory(memory, {"content": "I live in Munich"})
    assert result.action == EventAction.SUPERSEDED and result.memory.content == "I live in Munich"
    memory.refresh_from_db()
    assert memory.valid_until is not None and memory.content == "I live in Berlin"


def test_it_edits_importance_in_place_with_before_and_after(alice):
    memory = write.add_memory(alice, "I run on Sundays", importance=0.4).memory
    write.edit_memory(memory, {"importance": 0.9})
    event = MemoryEvent.objects.get(memory_ref=memory.pk, action=EventAction.UPDATED)
    assert event.before["importance"] == 0.4 and event.after["importance"] == 0.9


def test_it_merges_a_near_duplicate_and_keeps_the_higher_importance(alice):
    first = write.add_memory(alice, "I like green tea", importance=0.3).memory
    second = write.add_memory(alice, "I like green tea.", importance=0.8)
    assert second.action == EventAction.MERGED and second.memory.pk == first.pk
    first.refresh_from_db()
    assert first.importance == 0.8
    assert Memory.objects.filter(user=alice).count() == 1
    assert _events(first.pk) == ["created", "merged"]


def test_it_keeps_different_facts_apart(alice):
    write.add_memory(alice, "I like green tea")
    write.add_memory(alice, "My sister lives in Shanghai")
    assert Memory.objects.filter(user=alice).count() == 2


def test_it_hides_a_deleted_memory_from_recall_and_restores_it_with_history(alice):
    memory = write.add_memory(alice, "I am allergic to peanuts").memory
    write.delete_memory(memory)
    assert recall(alice, "peanut allergy", config=ALL).memories == []
    write.restore_memory(memory)
    assert [m.pk for m in recall(alice, "peanut allergy", config=ALL).memories] == [memory.pk]
    assert _events(memory.pk) == ["created", "deleted", "restored"]


def test_it_purges_a_memory_and_keeps_only_that_it_was_purged(alice):
    memory = write.add_memory(alice, "I like jazz").memory
    memory_id = memory.pk
    purge.purge_memory(memory)
    assert not Memory.objects.filter(pk=memory_id).exists()
    assert _events(memory_id) == ["purged"]
    purged = MemoryEvent.objects.get(memory_ref=memory_id)
    assert (purged.before, purged.after, purged.note, purged.actor) == (None, None, "", "user")


def test_it_reverts_a_supersede_back_to_the_old_memory(alice):
    old = write.add_memory(alice, "I use vim", valid_from=timezone.now() - timedelta(days=1)).memory
    new = write.supersede_memory(old, "I switched to emacs").memory
    write.revert_memory(new)
    old.refresh_from_db()
    new.refresh_from_db()
    assert old.valid_until is None and new.status == MemoryStatus.DELETED


def test_it_refuses_to_supersede_a_memory_that_is_no_longer_current(alice):
    old = write.add_memory(alice, "I use vim", valid_from=timezone.now() - timedelta(days=1)).memory
    write.supersede_memory(old, "I use emacs")
    with pytest.raises(MemoryConflict):
        write.supersede_memory(old, "I use nano")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({"content": "x" * 2001}, "content"),
        ({"content": "fine", "kind": "rumour"}, "kind"),
        ({"content": "fine", "importance": math.nan}, "importance"),
        ({"content": "fine", "importance": 1.5}, "importance"),
        ({"content": "fine", "confidence": -0.1}, "confidence"),
    ],
)
def test_it_rejects_bad_input_with_a_clear_error_and_writes_nothing(alice, changes, field):
    with pytest.raises(MemoryValidationError) as error:
        write.add_memory(alice, **changes)
    assert error.value.field == field and error.value.message
    assert not Memory.objects.exists() and not MemoryEvent.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_leaves_one_memory_when_two_writers_add_the_same_fact_at_once(alice):
    from memoryapp.providers.embeddings import get_embedder

    vector = get_embedder().embed_one("I drink oat milk")
    barrier = threading.Barrier(2)
    results = []

    def writer():
        barrier.wait()
        try:
            results.append(write.add_memory(alice, "I drink oat milk", embedding=vector).action)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["created", "merged"]
    assert Memory.objects.filter(user=alice).count() == 1


def test_it_reports_bulk_progress_per_batch_and_skips_duplicates(alice):
    reports: list[tuple[int, int]] = []
    items = [MemoryInput(content=f"Visited museum number {n}") for n in range(5)]
    items.append(MemoryInput(content="Visited museum number 0"))
    written = bulk_add(alice.pk, items, batch_size=2, progress=lambda done, total: reports.append((done, total)))
    assert reports == [(2, 6), (4, 6), (6, 6)]
    assert [m is None for m in written] == [False] * 5 + [True]
    assert Memory.objects.filter(user=alice).count() == 5


def test_it_stores_a_bulk_write_as_given_vectors_cues_history_and_words(alice, settings):
    """bulk_add copies its rows in (copy_rows.copy_insert): what comes back is what was stored, bit for bit."""
    import numpy as np

    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(3, settings.EMBEDDING_DIM)).tolist()
    cue_vectors = [rng.normal(size=settings.EMBEDDING_DIM).tolist(), None, None]
    items = [
        MemoryInput(content="Visited the Louvre in May", cues=["planning a trip to Paris"]),
        MemoryInput(content="我喜欢在周末去博物馆", context="chat about weekends"),
        MemoryInput(content="Prefers oat milk in coffee", importance=0.9),
    ]
    written = bulk_add(alice.pk, items, embeddings=vectors, cue_embeddings=cue_vectors)

    stored = {m.pk: m for m in Memory.objects.filter(user=alice)}
    assert sorted(stored) == sorted(m.pk for m in written)
    for memory, vector in zip(written, vectors):
        row = stored[memory.pk]
        # stored in half precision, as given: what float16 makes of each value
        assert np.array_equal(np.asarray(row.embedding, dtype=np.float16), np.asarray(vector, dtype=np.float16))
        assert row.created_at is not None and row.source == "imported"
    louvre, museum, milk = (stored[m.pk] for m in written)
    assert louvre.cues == ["planning a trip to Paris"]
    assert np.array_equal(
        np.asarray(louvre.cue_embedding, dtype=np.float16), np.asarray(cue_vectors[0], dtype=np.float16)
    )
    # Written without cues: the situation bank's, inferred (engine/learned/situations.py).
    assert museum.cues_inferred and museum.cue_embedding is not None and not louvre.cues_inferred
    assert museum.context == "chat about weekends" and milk.importance == 0.9
    events = MemoryEvent.objects.filter(user=alice, action=EventAction.IMPORTED)
    assert sorted(e.memory_id for e in events) == sorted(stored)
    assert {e.after["content"] for e in events} == {m.content for m in written}
    with connection.cursor() as cursor:  # the generated full-text vector is there, Chinese segmented
        cursor.execute(
            "SELECT id FROM memoryapp_memory WHERE user_id = %s AND search_vector @@ "
            "plainto_tsquery('memoryapp_mixed', %s)",
            [alice.pk, "博物馆"],
        )
        assert [row[0] for row in cursor.fetchall()] == [museum.pk]
