"""The small beat jobs and the extract command, run in this process."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from conversations.models import Conversation
from memoryapp.engine.llm.candidates import EXTRACT_MARKER
from memoryapp.engine.llm.decisions import DECIDE_MARKER
from memoryapp.engine.memories import write
from memoryapp.models import Memory
from memoryapp.pipeline.models import ExtractionRun
from tasks.access import flush_access
from tasks.maintenance import purge_temporary

from .conftest import candidates, chat, decisions

pytestmark = pytest.mark.django_db


def test_it_schedules_every_background_job():
    schedule = {entry["task"]: entry["schedule"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert schedule["tasks.access.flush_access"] == 60.0
    assert schedule["tasks.graph_sync.drain_pending"] == 300.0
    assert {"tasks.maintenance.purge_temporary", "tasks.consolidation.consolidate_due"} <= set(schedule)
    assert schedule["tasks.forgetting.forget_all"].hour == {settings.FORGET_HOUR}


def test_it_purges_old_temporary_chats_and_keeps_the_rest(alice):
    old, _ = chat(alice, "scratch", temporary=True)
    Conversation.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=25))
    fresh, _ = chat(alice, "scratch", temporary=True)
    kept, _ = chat(alice, "I like tea")
    Conversation.objects.filter(pk=kept.pk).update(created_at=timezone.now() - timedelta(days=3))

    assert purge_temporary.apply().get() == 1
    assert set(Conversation.objects.values_list("pk", flat=True)) == {fresh.pk, kept.pk}


def test_it_flushes_access_counts(alice):
    assert flush_access.apply().get() >= 0  # nothing pending is not an error


def test_it_extracts_a_conversation_from_the_command_line(alice):
    conversation, _ = chat(alice, "I am learning Rust")
    out = io.StringIO()
    call_command("extract", "--conversation", str(conversation.pk), stdout=out, stderr=io.StringIO())
    call_command("extract", "--conversation", str(conversation.pk), stdout=out, stderr=io.StringIO())

    assert "done {'ADD': 1}" in out.getvalue() and "already done, nothing to do" in out.getvalue()
    assert list(Memory.objects.filter(user=alice).values_list("content", flat=True)) == ["I am learning Rust"]


def test_it_marks_the_window_failed_when_the_command_meets_a_conflict(alice, llm_server, use_scripted_llm):
    vue = write.add_memory(alice, "I like Vue 3 for frontend work", kind="preference").memory
    angular = write.add_memory(alice, "I use Angular at work", kind="fact").memory
    write.add_memory(alice, "I now prefer React for frontend work", kind="preference")
    conversation, _ = chat(alice, "I no longer like Vue", "I now prefer React for frontend work")
    llm_server.script(
        EXTRACT_MARKER,
        candidates(
            ("I no longer like Vue for frontend work", "preference"),
            ("I now prefer React for frontend work", "preference"),
        ),
    )
    # Replacing Angular with words another memory holds already: the batch conflicts with what is current.
    llm_server.script(DECIDE_MARKER, decisions(("DELETE", vue.pk), ("UPDATE", angular.pk)))
    out = io.StringIO()
    call_command("extract", "--conversation", str(conversation.pk), stdout=out, stderr=io.StringIO())

    assert "run it again later" in out.getvalue()
    run = ExtractionRun.objects.get()
    assert run.status == "failed" and "already current" in run.error  # not left "running" for 15 minutes
