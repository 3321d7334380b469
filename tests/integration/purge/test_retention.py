"""Deleted memories are restorable for DELETED_RETENTION_DAYS, then the beat purges them for good."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from memoryapp.engine.memories import write
from memoryapp.models import EventAction, Memory, MemoryEvent
from tasks.maintenance import purge_deleted
from tests.support.leaks import columns_holding

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


def _deleted_days_ago(memory: Memory, days: int) -> None:
    write.delete_memory(memory)
    when = timezone.now() - timedelta(days=days)
    MemoryEvent.objects.filter(memory_ref=memory.pk, action=EventAction.DELETED).update(created_at=when)
    Memory.objects.filter(pk=memory.pk).update(updated_at=when)


def test_it_purges_what_was_deleted_before_the_retention_period(alice, bob, settings):
    settings.DELETED_RETENTION_DAYS = 30
    expired = write.add_memory(alice, "Zanzibar-quokka-8812 我的秘密").memory
    recent = write.add_memory(alice, "Lives in Lisbon").memory
    active = write.add_memory(alice, "Likes green tea").memory
    bobs = write.add_memory(bob, "Bob lives in Oslo").memory
    _deleted_days_ago(expired, 31)
    _deleted_days_ago(recent, 29)
    _deleted_days_ago(bobs, 45)

    assert purge_deleted() == 2  # the task body, as the beat runs it

    assert set(Memory.objects.values_list("pk", flat=True)) == {recent.pk, active.pk}
    assert columns_holding("zanzibar", "oslo") == []
    assert MemoryEvent.objects.get(memory_ref=expired.pk).actor == "system"


def test_it_counts_from_the_deletion_not_from_the_last_change(alice, settings):
    settings.DELETED_RETENTION_DAYS = 30
    memory = write.add_memory(alice, "Lives in Lisbon").memory
    _deleted_days_ago(memory, 40)
    write.restore_memory(memory)
    write.delete_memory(memory)  # deleted again today
    Memory.objects.filter(pk=memory.pk).update(updated_at=timezone.now() - timedelta(days=40))

    assert purge_deleted() == 0
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_the_beat_runs_it(alice, settings):
    """The beat's entry names a task the Celery app has registered, and that task, run by that name with the
    entry's arguments, purges what the retention period let go."""
    from memoryapp.celery import app

    settings.DELETED_RETENTION_DAYS = 30
    expired = write.add_memory(alice, "Zanzibar-quokka-8812").memory
    recent = write.add_memory(alice, "Lives in Lisbon").memory
    _deleted_days_ago(expired, 31)
    _deleted_days_ago(recent, 29)
    entry = app.conf.beat_schedule["purge-deleted"]  # what the beat reads
    app.loader.import_default_modules()  # what a worker imports when it starts: the autodiscovered tasks

    assert entry["task"] in app.tasks
    run = app.tasks[entry["task"]].apply(args=entry.get("args", ()), kwargs=entry.get("kwargs", {}))

    assert run.get() == 1
    assert list(Memory.objects.values_list("pk", flat=True)) == [recent.pk]


def test_it_runs_by_hand(alice):
    memory = write.add_memory(alice, "Lives in Lisbon").memory
    _deleted_days_ago(memory, 8)
    out = StringIO()

    call_command("purge_deleted", "--days", "7", stdout=out)

    assert "1 memory(ies) purged" in out.getvalue()
    assert not Memory.objects.filter(pk=memory.pk).exists()
    with pytest.raises(CommandError, match="0 or more"):
        call_command("purge_deleted", "--days", "-1")


def test_a_negative_retention_stops_the_app_with_one_clear_line():
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DELETED_RETENTION_DAYS": "-1"},
        timeout=120,
    )
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "DELETED_RETENTION_DAYS must be 0 or more, not -1" in result.stderr
