"""Delete forever takes the failed runs of the deleted rows' jobs too, found through the job seam
(engine/jobs.py: each kind's runner and what its first argument is about), not by task-name strings."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from conversations.models import Conversation
from memoryapp.engine import jobs
from memoryapp.engine.memories import purge, write
from memoryapp.pipeline.models import FailedTask

pytestmark = pytest.mark.django_db


@dataclass
class Renamed:
    """A runner whose task is called something no list of names in the engine knows."""

    name: str

    def delay(self, *args):
        raise AssertionError("nothing is queued here")


@pytest.fixture
def renamed(monkeypatch):
    def rename(kind: jobs.Job) -> str:
        name = f"elsewhere.{kind.value}_v2"
        monkeypatch.setitem(jobs._runners, kind, Renamed(name))
        return name

    return rename


def test_it_deletes_the_failed_jobs_of_a_deleted_account_whatever_their_task_is_called(alice, bob, renamed):
    extract, forget = renamed(jobs.Job.EXTRACT), renamed(jobs.Job.FORGET)
    chat = Conversation.objects.create(user=alice, title="holiday")
    FailedTask.objects.create(task_name=extract, args=[chat.pk, [1, 2]], error="timeout")
    FailedTask.objects.create(task_name=forget, kwargs={"user_id": alice.pk}, error="timeout")
    FailedTask.objects.create(task_name=forget, args=[bob.pk], error="timeout")

    purge.delete_account(alice)

    assert list(FailedTask.objects.values_list("task_name", "args")) == [(forget, [bob.pk])]


def test_it_deletes_the_failed_graph_syncs_of_a_purged_memory(alice, renamed):
    sync = renamed(jobs.Job.SYNC_MEMORY)
    memory = write.add_memory(alice, "Likes green tea").memory
    kept = write.add_memory(alice, "Plays chess").memory
    FailedTask.objects.create(task_name=sync, args=[memory.pk], error="graph down")
    FailedTask.objects.create(task_name=sync, args=[kept.pk], error="graph down")

    purge.purge_memory(memory)

    assert list(FailedTask.objects.values_list("args", flat=True)) == [[kept.pk]]
