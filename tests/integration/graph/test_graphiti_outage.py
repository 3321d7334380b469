"""A graph that is down or slow never fails a write or a recall; pending syncs drain when it is back."""

from __future__ import annotations

import time

import pytest

from memoryapp.graph import GraphUnavailable, get_graph, search_memory_ids, sync
from memoryapp.models import GraphSyncState
from tasks import graph_sync as graph_tasks

from .conftest import make_memory
from .falkor_server import DedicatedFalkorDB

pytestmark = pytest.mark.integration


@pytest.fixture
def falkor(tmp_path, settings, graph_namespace):
    server = DedicatedFalkorDB(tmp_path).start()
    settings.FALKORDB_URL = server.url
    yield server
    server.stop()


@pytest.fixture
def run_tasks_inline(monkeypatch):
    """Queueing a sync (the job seam calls the task's `.delay()`) runs the task body here instead of sending
    it to a worker."""
    queued: list[int] = []

    def delay(memory_id: int) -> None:
        queued.append(memory_id)
        graph_tasks.sync_memory(memory_id)

    monkeypatch.setattr(graph_tasks.sync_memory, "delay", delay)
    return queued


def test_it_raises_graph_unavailable_quickly_for_a_closed_port(alice, settings, graph_namespace, graph_script):
    settings.FALKORDB_URL = "redis://127.0.0.1:1/0"
    memory = make_memory(alice, "I live in Rome")

    started = time.monotonic()
    with pytest.raises(GraphUnavailable):
        search_memory_ids(alice.pk, "Rome", limit=5, timeout_s=20.0)
    assert time.monotonic() - started < 10.0  # refused at once, not waited out (generous for a busy machine)

    with pytest.raises(GraphUnavailable):
        graph_tasks.sync_memory(memory.pk)  # called directly, Celery's autoretry re-raises
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.PENDING
    assert not get_graph().health().ok


def test_it_times_out_a_slow_graph_within_the_budget(alice, graph, graph_script, monkeypatch):
    import asyncio

    from memoryapp.graph.graphiti import GraphitiGraph

    async def slow_search(self, *args, **kwargs):
        await asyncio.sleep(5)

    monkeypatch.setattr(GraphitiGraph, "_search", slow_search)
    started = time.monotonic()
    with pytest.raises(GraphUnavailable, match="did not answer within 0.3 s"):
        search_memory_ids(alice.pk, "anything", limit=5, timeout_s=0.3)
    assert time.monotonic() - started < 1.0


def test_it_drains_pending_syncs_once_the_graph_is_back(
    alice, falkor, graph_script, run_tasks_inline, django_capture_on_commit_callbacks
):
    before = make_memory(alice, "I live in Madrid")
    assert sync.sync_memory(before.pk) == sync.SyncOutcome.SYNCED

    falkor.stop()
    during = make_memory(alice, "I work at Globex")
    with pytest.raises(GraphUnavailable):
        graph_tasks.sync_memory(during.pk)
    started = time.monotonic()
    with pytest.raises(GraphUnavailable):
        search_memory_ids(alice.pk, "Madrid", limit=5, timeout_s=2.0)
    assert time.monotonic() - started < 1.0
    assert graph_tasks.drain_pending() == 0  # unhealthy: nothing queued to fail again
    during.refresh_from_db()
    assert during.graph_sync_state == GraphSyncState.PENDING

    falkor.start()
    with django_capture_on_commit_callbacks(execute=True):  # as on the worker, where no transaction is open
        assert graph_tasks.drain_pending() == 1
    assert run_tasks_inline == [during.pk]
    during.refresh_from_db()
    assert during.graph_sync_state == GraphSyncState.SYNCED
    # Best first; BFS from the shared "User" node also brings the other memory along.
    assert search_memory_ids(alice.pk, "Globex", limit=5, timeout_s=10)[0][0] == during.pk
    assert search_memory_ids(alice.pk, "Madrid", limit=5, timeout_s=10)[0][0] == before.pk
