"""Every N user turns the chat queues extraction of the last 10 messages, after commit."""

from __future__ import annotations

import pytest

from conversations.models import Message
from memoryapp.engine.learning.extraction import on_user_turn
from memoryapp.models import MemorySettings
from memoryapp.pipeline.models import ExtractionRun
from tasks.extraction import extract_messages

from .conftest import chat

pytestmark = pytest.mark.django_db


def _turn(conversation, text: str) -> bool:
    Message.objects.create(conversation=conversation, role="user", content=text)
    return on_user_turn(conversation, extract_messages.delay_on_commit)


def test_it_queues_the_last_ten_messages_every_fifth_user_turn(alice, django_capture_on_commit_callbacks):
    conversation, _ids = chat(alice)
    with django_capture_on_commit_callbacks() as queued:
        results = [_turn(conversation, f"turn {i}") for i in range(1, 11)]

    assert results == [False] * 4 + [True] + [False] * 4 + [True]
    assert len(queued) == 2  # sent to the broker only once the messages are committed
    first, second = ExtractionRun.objects.order_by("id")
    assert len(first.message_ids) == 5 and len(second.message_ids) == 10


def test_it_follows_the_users_cadence(alice, django_capture_on_commit_callbacks):
    MemorySettings.objects.create(user=alice, extract_every_n_turns=2)
    conversation, _ids = chat(alice)
    with django_capture_on_commit_callbacks():
        assert [_turn(conversation, f"turn {i}") for i in range(4)] == [False, True, False, True]


def test_it_never_queues_for_a_temporary_chat_or_with_memory_off(alice, bob, django_capture_on_commit_callbacks):
    MemorySettings.objects.create(user=bob, memory_enabled=False)
    temporary, _ = chat(alice, temporary=True)
    off, _ = chat(bob)
    with django_capture_on_commit_callbacks() as queued:
        for i in range(6):
            assert not _turn(temporary, f"turn {i}") and not _turn(off, f"turn {i}")
    assert queued == [] and not ExtractionRun.objects.exists()
