"""The job seam (engine/jobs.py) queues on commit, and a broker that is down never fails the caller:
the work is left for its sweep (an ended chat is opened again, for the idle sweep to end)."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from memoryapp.engine import jobs
from memoryapp.engine.chat import chat_end

from .conftest import chat

pytestmark = pytest.mark.django_db


class Broker:
    def __init__(self, name: str, down: bool = False):
        self.name, self.down, self.sent = name, down, []

    def delay(self, *args):
        if self.down:
            raise ConnectionError("broker unreachable")
        self.sent.append(args)


def _swap(monkeypatch, kind: jobs.Job, down: bool = False) -> Broker:
    broker = Broker(f"test.{kind.value}", down)
    monkeypatch.setitem(jobs._runners, kind, broker)
    return broker


def test_it_sends_a_job_only_once_the_transaction_commits(alice, monkeypatch, django_capture_on_commit_callbacks):
    broker = _swap(monkeypatch, jobs.Job.FINISH_CHAT)
    conversation, _ = chat(alice, "I'm moving to Lyon next month")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert chat_end.end_chats([conversation.pk, conversation.pk]) == [conversation.pk]  # ended once
        assert broker.sent == []
    assert len(callbacks) == 1 and broker.sent == [(conversation.pk,)]


def test_it_leaves_a_chat_open_for_the_sweep_when_the_broker_is_down(
    alice, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    _swap(monkeypatch, jobs.Job.FINISH_CHAT, down=True)
    conversation, _ = chat(alice, "I'm moving to Lyon next month")
    with django_capture_on_commit_callbacks(execute=True):
        chat_end.end_chats([conversation.pk])  # does not raise into the page that ended it

    assert Conversation.objects.get(pk=conversation.pk).ended_at is None
    assert "could not queue the finish_chat job" in caplog.text


def test_finishing_a_chat_queues_its_windows_and_its_episode(alice, monkeypatch, django_capture_on_commit_callbacks):
    extract, consolidate = _swap(monkeypatch, jobs.Job.EXTRACT), _swap(monkeypatch, jobs.Job.CONSOLIDATE)
    conversation, ids = chat(alice, "one", "two", "three", "four", "five", "six")
    with django_capture_on_commit_callbacks(execute=True):
        assert chat_end.finish_chat(conversation.pk) == 2

    assert extract.sent == [(conversation.pk, ids[:10]), (conversation.pk, ids[10:])]
    assert consolidate.sent == [(conversation.pk,)]


def test_an_unknown_kind_fails_at_once(monkeypatch):
    monkeypatch.delitem(jobs._runners, jobs.Job.FORGET)
    with pytest.raises(jobs.JobNotRegistered):
        jobs.enqueue(jobs.Job.FORGET, 1)
