"""The Zep adapter against a local stand-in of Zep's v2 routes (protocol level: see zep_server.py)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from memoryapp.graph import GraphUnavailable, get_graph, search_memory_ids, sync
from memoryapp.models import GraphSyncState, Memory, MemoryStatus
from tasks import graph_sync as graph_tasks

from .conftest import make_memory
from .zep_server import ZepServer

pytestmark = pytest.mark.integration


@pytest.fixture
def zep(settings):
    with ZepServer(api_key="zep-test-key") as server:
        settings.GRAPH_BACKEND = "zep"
        settings.GRAPH_NAMESPACE = "memoryapp"
        settings.ZEP_API_URL = server.url
        settings.ZEP_API_KEY = "zep-test-key"
        yield server


def ids(results):
    return [memory_id for memory_id, _ in results]


def test_it_syncs_a_memory_as_a_session_of_the_users_zep_user(alice, zep):
    memory = make_memory(alice, "I live in Berlin")

    assert graph_tasks.sync_memory(memory.pk) == "synced"  # no language model needed: Zep extracts

    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.SYNCED
    assert memory.graph_episode_id.startswith(f"memoryapp-memory-{memory.pk}-")
    calls = [(r["method"], r["path"]) for r in zep.requests]
    assert calls == [
        ("GET", f"/api/v2/users/memoryapp-user-{alice.pk}"),
        ("POST", "/api/v2/users"),
        ("POST", "/api/v2/sessions"),
        ("POST", f"/api/v2/sessions/{memory.graph_episode_id}/memory"),
    ]
    assert all(r["authorization"] == "Api-Key zep-test-key" for r in zep.requests)
    assert zep.requests[2]["body"]["user_id"] == f"memoryapp-user-{alice.pk}"
    assert zep.requests[3]["body"]["messages"] == [
        {"role": "user", "role_type": "user", "content": "I live in Berlin", "metadata": {"memory_id": memory.pk}}
    ]
    assert ids(search_memory_ids(alice.pk, "where do I live Berlin", limit=5, timeout_s=5)) == [memory.pk]
    search = zep.requests[-1]
    assert (search["path"], search["body"]["search_scope"], search["query"]["limit"]) == (
        "/api/v2/sessions/search",
        "facts",
        ["15"],
    )


def test_it_resyncs_only_changed_memories_and_filters_by_the_rows(alice, bob, zep):
    berlin = make_memory(alice, "I live in Berlin", valid_from=timezone.now() - timedelta(days=9))
    sync.sync_memory(berlin.pk)
    berlin.refresh_from_db()
    first = len(zep.requests)
    Memory.objects.filter(pk=berlin.pk).update(graph_sync_state=GraphSyncState.PENDING)
    assert sync.sync_memory(berlin.pk) == sync.SyncOutcome.UNCHANGED
    assert len(zep.requests) == first  # unchanged: no request at all

    moved = timezone.now() - timedelta(days=2)
    paris = make_memory(alice, "I live in Paris", valid_from=moved)
    Memory.objects.filter(pk=berlin.pk).update(valid_until=moved, graph_sync_state=GraphSyncState.PENDING)
    sync.sync_memory(paris.pk)
    sync.sync_memory(berlin.pk)
    assert ids(search_memory_ids(alice.pk, "I live in", limit=5, timeout_s=5)) == [paris.pk]
    at = moved - timedelta(days=1)
    assert ids(search_memory_ids(alice.pk, "I live in", at=at, limit=5, timeout_s=5)) == [berlin.pk]
    assert search_memory_ids(bob.pk, "I live in", limit=5, timeout_s=5) == []  # scoped to the user

    Memory.objects.filter(pk=paris.pk).update(status=MemoryStatus.DELETED)
    assert search_memory_ids(alice.pk, "I live in", limit=5, timeout_s=5) == []


def test_it_replaces_and_purges_sessions(alice, zep):
    memory = make_memory(alice, "I drive a Volvo")
    sync.sync_memory(memory.pk)
    memory.refresh_from_db()
    old = memory.graph_episode_id
    Memory.objects.filter(pk=memory.pk).update(content="I drive a Tesla", graph_sync_state=GraphSyncState.PENDING)

    sync.sync_memory(memory.pk)

    memory.refresh_from_db()
    assert memory.graph_episode_id != old
    assert ("DELETE", f"/api/v2/sessions/{old}/memory") in [(r["method"], r["path"]) for r in zep.requests]
    assert ids(search_memory_ids(alice.pk, "Volvo", limit=5, timeout_s=5)) == []
    graph_tasks.purge_episode(memory.graph_episode_id, alice.pk)
    assert ids(search_memory_ids(alice.pk, "Tesla", limit=5, timeout_s=5)) == []
    graph_tasks.purge_episode(memory.graph_episode_id, alice.pk)  # already gone: quiet


def test_it_rebuilds_a_users_zep_data_from_postgres(alice, zep):
    memories = [make_memory(alice, text) for text in ("I like Rust", "I live in Oslo")]
    for memory in memories:
        sync.sync_memory(memory.pk)

    episodes = sync.rebuild_from_rows(get_graph(), alice.pk)

    assert set(episodes) == {m.pk for m in memories}
    assert ("DELETE", f"/api/v2/users/memoryapp-user-{alice.pk}") in [(r["method"], r["path"]) for r in zep.requests]
    assert ids(search_memory_ids(alice.pk, "Oslo", limit=5, timeout_s=5)) == [memories[1].pk]


def test_it_reports_an_unreachable_zep_as_unavailable(alice, settings):
    settings.GRAPH_BACKEND = "zep"
    settings.ZEP_API_URL = "http://127.0.0.1:1"
    memory = make_memory(alice, "I live in Rome")

    started = time.monotonic()
    with pytest.raises(GraphUnavailable):
        search_memory_ids(alice.pk, "Rome", limit=5, timeout_s=2)
    assert time.monotonic() - started < 1.0
    with pytest.raises(GraphUnavailable):
        graph_tasks.sync_memory(memory.pk)
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.PENDING
    assert not get_graph().health().ok
