"""memory_changed -> the row goes pending and a sync is queued; a purge queues the episode's removal."""

from __future__ import annotations

import pytest

from memoryapp.engine.memories.signals import memory_changed
from memoryapp.models import GraphSyncState, Memory
from tasks import graph_sync as graph_tasks

from .conftest import make_memory


@pytest.fixture
def queued(monkeypatch):
    sent: list[tuple] = []
    monkeypatch.setattr(graph_tasks.sync_memory, "delay", lambda *a: sent.append(("sync", *a)))
    monkeypatch.setattr(graph_tasks.purge_episode, "delay", lambda *a: sent.append(("purge", *a)))
    return sent


def test_it_marks_the_row_pending_and_queues_a_sync(alice, queued, django_capture_on_commit_callbacks):
    memory = make_memory(alice, "I like Go")
    Memory.objects.filter(pk=memory.pk).update(graph_sync_state=GraphSyncState.SYNCED)

    with django_capture_on_commit_callbacks(execute=True):
        memory_changed.send(sender=Memory, memory_id=memory.pk, user_id=alice.pk, action="superseded")

    assert queued == [("sync", memory.pk)]
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.PENDING


@pytest.mark.parametrize("action", ["boosted", "deleted", "forgotten", "exported"])
def test_it_ignores_changes_the_graph_does_not_hold(alice, queued, django_capture_on_commit_callbacks, action):
    memory = make_memory(alice, "I like Go")
    Memory.objects.filter(pk=memory.pk).update(graph_sync_state=GraphSyncState.SYNCED)

    with django_capture_on_commit_callbacks(execute=True):
        memory_changed.send(sender=Memory, memory_id=memory.pk, user_id=alice.pk, action=action)

    assert queued == []
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.SYNCED


def test_it_queues_the_removal_of_a_purged_memorys_episode(alice, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        memory_changed.send(sender=Memory, memory_id=41, user_id=alice.pk, action="purged", episode_id="ep-41")

    assert queued == [("purge", "ep-41", alice.pk)]


def test_it_never_fails_the_writer_when_the_broker_is_down(alice, monkeypatch, django_capture_on_commit_callbacks):
    def broker_down(*args):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(graph_tasks.sync_memory, "delay", broker_down)
    memory = make_memory(alice, "I like Go")

    with django_capture_on_commit_callbacks(execute=True):
        memory_changed.send(sender=Memory, memory_id=memory.pk, user_id=alice.pk, action="created")

    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.PENDING  # the drain will pick it up


def test_the_graphs_work_is_queued_through_the_job_seam(alice, monkeypatch, django_capture_on_commit_callbacks):
    """Like every other background job (engine/jobs.py): a test or a deployment swapping a kind's runner
    swaps it for the graph's work too, and the purge finds its runs by kind."""
    from memoryapp.engine import jobs
    from memoryapp.engine.memories.signals import all_memories_purged

    sent: list[tuple] = []

    class Runner:
        def __init__(self, kind):
            self.kind, self.name = kind, f"test.{kind.value}"

        def delay(self, *args):
            sent.append((self.kind, *args))

    for kind in (jobs.Job.SYNC_MEMORY, jobs.Job.PURGE_EPISODE, jobs.Job.DROP_USER):
        monkeypatch.setitem(jobs._runners, kind, Runner(kind))
    memory = make_memory(alice, "I like Go")

    with django_capture_on_commit_callbacks(execute=True):
        memory_changed.send(sender=Memory, memory_id=memory.pk, user_id=alice.pk, action="created")
        memory_changed.send(sender=Memory, memory_id=41, user_id=alice.pk, action="purged", episode_id="ep-41")
        all_memories_purged.send(sender=Memory, user_id=alice.pk)
        assert sent == []  # on commit, never before

    assert sent == [
        (jobs.Job.SYNC_MEMORY, memory.pk),
        (jobs.Job.PURGE_EPISODE, "ep-41", alice.pk),
        (jobs.Job.DROP_USER, alice.pk),
    ]
