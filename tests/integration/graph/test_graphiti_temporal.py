"""Validity on the graph: supersede (invalidated fact, as-of search), soft delete and restore, purge, rebuild."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryapp.graph import search_memory_ids, sync
from memoryapp.models import GraphSyncState, Memory, MemoryStatus
from tasks import graph_sync as graph_tasks

from .conftest import make_memory

pytestmark = pytest.mark.integration

T0 = timezone.now().replace(microsecond=0) - timedelta(days=30)
T1 = T0 + timedelta(days=10)


def ids(results: list[tuple[int, float]]) -> list[int]:
    return [memory_id for memory_id, _ in results]


def supersede(old: Memory, new_content: str, at) -> Memory:
    """What the engine's UPDATE does: the new memory supersedes the old at `at`."""
    new = make_memory(old.user, new_content, valid_from=at)
    new.supersedes.add(old)
    Memory.objects.filter(pk=old.pk).update(valid_until=at, graph_sync_state=GraphSyncState.PENDING)
    return new


@pytest.fixture
def moved(alice, graph, graph_script):
    """alice lived in Berlin from T0 and moved to Paris at T1; both synced."""
    berlin = make_memory(alice, "I live in Berlin", valid_from=T0)
    sync.sync_memory(berlin.pk)
    paris = supersede(berlin, "I live in Paris", T1)
    sync.sync_memory(paris.pk)
    sync.sync_memory(berlin.pk)  # the superseded one: validity only, no model calls
    berlin.refresh_from_db()
    paris.refresh_from_db()
    return berlin, paris


def test_it_shows_a_supersede_as_an_invalidated_fact(alice, graph, moved):
    berlin, paris = moved

    facts = {f.fact: f for f in graph.facts_of_user(alice.pk)}
    assert facts["User live in Berlin"].invalid_at == T1
    assert facts["User live in Berlin"].valid_at == T0
    assert facts["User live in Paris"].invalid_at is None
    assert berlin.graph_sync_state == paris.graph_sync_state == GraphSyncState.SYNCED


def test_it_searches_as_of_a_time(alice, moved):
    berlin, paris = moved

    assert ids(search_memory_ids(alice.pk, "where does User live", limit=5, timeout_s=10)) == [paris.pk]
    before = search_memory_ids(alice.pk, "where does User live", at=T0 + timedelta(days=1), limit=5, timeout_s=10)
    assert ids(before) == [berlin.pk]
    after = search_memory_ids(alice.pk, "where does User live", at=T1 + timedelta(days=1), limit=5, timeout_s=10)
    assert ids(after) == [paris.pk]
    history = search_memory_ids(alice.pk, "where does User live", limit=5, include_history=True, timeout_s=10)
    assert sorted(ids(history)) == sorted([berlin.pk, paris.pk])


def test_it_filters_soft_deleted_and_forgotten_memories_and_restores_them(alice, graph, graph_script):
    tea = make_memory(alice, "I drink Earl Grey tea")
    sync.sync_memory(tea.pk)
    query = "what tea does User drink"
    assert ids(search_memory_ids(alice.pk, query, limit=5, timeout_s=10)) == [tea.pk]

    # The status lives on the row only: no sync runs (receivers.IGNORED_ACTIONS), yet search follows it.
    for status in (MemoryStatus.DELETED, MemoryStatus.FORGOTTEN):
        Memory.objects.filter(pk=tea.pk).update(status=status)
        assert search_memory_ids(alice.pk, query, limit=5, timeout_s=10) == []
        assert ids(search_memory_ids(alice.pk, query, limit=5, include_history=True, timeout_s=10)) == [tea.pk]

        Memory.objects.filter(pk=tea.pk).update(status=MemoryStatus.ACTIVE)
        assert ids(search_memory_ids(alice.pk, query, limit=5, timeout_s=10)) == [tea.pk]


def test_it_purges_the_episode_and_the_facts_only_it_supported(alice, graph, graph_script):
    keep = make_memory(alice, "I live in Oslo")
    gone = make_memory(alice, "I play the Cello")
    sync.sync_memory(keep.pk)
    sync.sync_memory(gone.pk)
    gone.refresh_from_db()
    episode = gone.graph_episode_id
    gone.delete()  # "delete permanently": the row goes, then memory_changed(action="purged", episode_id=...)

    assert graph_tasks.purge_episode(episode, alice.pk) == "purged"

    facts = graph.facts_of_user(alice.pk)
    assert [f.fact for f in facts] == ["User live in Oslo"]
    assert all(episode not in f.episode_ids for f in facts)
    assert graph_tasks.purge_episode(episode, alice.pk) == "purged"  # again: quiet no-op


def test_it_rebuilds_a_users_graph_from_postgres_with_the_same_facts(alice, graph, moved):
    berlin, paris = moved
    tea = make_memory(alice, "I drink Earl Grey tea")
    sync.sync_memory(tea.pk)
    Memory.objects.filter(pk=tea.pk).update(status=MemoryStatus.DELETED)

    def snapshot() -> set[tuple]:
        by_episode = dict(Memory.objects.filter(user=alice).values_list("graph_episode_id", "id"))
        return {
            (f.fact, f.valid_at, f.invalid_at, tuple(sorted(by_episode[e] for e in f.episode_ids)))
            for f in graph.facts_of_user(alice.pk)
        }

    before = snapshot()
    episodes = sync.rebuild_from_rows(graph, alice.pk)

    assert snapshot() == before
    assert set(episodes) == {berlin.pk, paris.pk, tea.pk}
    assert set(Memory.objects.filter(user=alice).values_list("graph_sync_state", flat=True)) == {GraphSyncState.SYNCED}
    assert ids(search_memory_ids(alice.pk, "where does User live", limit=5, timeout_s=10)) == [paris.pk]
