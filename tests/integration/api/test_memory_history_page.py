"""A memory's history (the History button on a card): every event in words a user understands."""

from __future__ import annotations

import pytest
from django.urls import reverse

from conversations.models import Conversation
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.memories.write import add_memory
from memoryapp.engine.recall import access
from tasks.extraction import extract_messages

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("language", "used"), [("en", "Used in a chat"), ("zh-Hans", "在对话中使用")])
def test_it_says_a_memory_was_used_in_a_chat_and_which_one(alice_client, alice, language, used):
    memory = add_memory(alice, "My daughter Emma is allergic to peanuts").memory
    access.wait_for_pending_notes()
    access.flush_access()  # start from an empty batch
    chat = Conversation.objects.create(user=alice, title="Birthday cake ideas")
    start_turn(
        chat, "Which cake can I bake for my daughter's party?", enqueue_extraction=extract_messages.delay_on_commit
    )
    access.wait_for_pending_notes()
    access.flush_access()

    history = alice_client.get(f"/settings/memories/{memory.pk}/history", HTTP_ACCEPT_LANGUAGE=language)
    text = history.content.decode()
    assert used in text
    assert "Birthday cake ideas" in text and reverse("conversation", args=[chat.pk]) in text  # which chat, as a link
    assert "“”" not in text  # no empty quotes where a change would show its wording
    assert "System" not in text and "系统" not in text
