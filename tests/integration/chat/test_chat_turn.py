"""The chat turn service (engine/chat/chat.py) against the real database and the scripted model."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.models import Conversation, Message
from conversations.services import purge_temporary
from memoryapp.engine.chat import chat
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import MemorySettings
from tasks.extraction import extract_messages

ENQUEUE_EXTRACTION = extract_messages.delay_on_commit  # as the chat's edges queue extraction

pytestmark = pytest.mark.django_db


def test_it_puts_recalled_memories_in_the_system_prompt_and_cites_them(alice, llm_server, scripted_llm):
    memory = add_memory(alice, "I prefer Python for scripting", kind="preference").memory
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, "Use Python, as you prefer.")

    turn, reply = chat.chat_turn(
        conversation,
        "Which language should I use for scripting? I prefer Python",
        enqueue_extraction=ENQUEUE_EXTRACTION,
        llm=scripted_llm,
    )

    system = llm_server.chat_requests()[-1]["messages"][0]["content"]
    assert "<memories>" in system and "I prefer Python for scripting" in system
    assert reply.content == "Use Python, as you prefer."
    citation = reply.citations.get()
    assert citation.memory == memory and citation.rank == 1 and citation.score > 0
    assert conversation.messages.count() == 2
    conversation.refresh_from_db()
    assert conversation.title.startswith("Which language")


def test_it_recalls_nothing_when_memory_is_off(alice, llm_server, scripted_llm):
    add_memory(alice, "I prefer Python for scripting", kind="preference")
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    conversation = Conversation.objects.create(user=alice)

    turn, reply = chat.chat_turn(
        conversation, "I prefer Python for scripting, right?", enqueue_extraction=ENQUEUE_EXTRACTION, llm=scripted_llm
    )

    assert "<memories>" not in llm_server.chat_requests()[-1]["messages"][0]["content"]
    assert not turn.memory_used and reply.citations.count() == 0


def test_it_recalls_nothing_in_a_temporary_chat(alice, llm_server, scripted_llm):
    add_memory(alice, "I prefer Python for scripting", kind="preference")
    conversation = Conversation.objects.create(user=alice, temporary=True)

    turn, reply = chat.chat_turn(
        conversation, "I prefer Python for scripting, right?", enqueue_extraction=ENQUEUE_EXTRACTION, llm=scripted_llm
    )

    assert "<memories>" not in llm_server.chat_requests()[-1]["messages"][0]["content"]
    assert reply.citations.count() == 0


@pytest.mark.parametrize(
    "message, says",
    [
        ("What should I cook for dinner tonight?", "Memory is off in this chat"),
        ("今晚做什么菜好？", "这个对话没有开启记忆"),
    ],
)
def test_the_offline_reply_in_a_temporary_chat_says_memory_is_off(alice, message, says):
    add_memory(alice, "I'm vegetarian", kind="preference")
    conversation = Conversation.objects.create(user=alice, temporary=True)

    _turn, reply = chat.chat_turn(conversation, message, enqueue_extraction=ENQUEUE_EXTRACTION, llm=None)

    assert says in reply.content
    assert "No stored memories match" not in reply.content and "没有与这条消息相关的记忆" not in reply.content


def test_a_model_is_told_memory_is_off_when_it_is(alice, llm_server, scripted_llm):
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    conversation = Conversation.objects.create(user=alice)

    chat.chat_turn(conversation, "Do you remember my name?", enqueue_extraction=ENQUEUE_EXTRACTION, llm=scripted_llm)

    assert "Memory is off in this chat" in llm_server.chat_requests()[-1]["messages"][0]["content"]


def test_it_retries_the_unanswered_message_without_saving_it_twice(alice, llm_server, scripted_llm):
    conversation = Conversation.objects.create(user=alice)
    Message.objects.create(conversation=conversation, role="user", content="hello there")

    turn, reply = chat.chat_turn(conversation, None, enqueue_extraction=ENQUEUE_EXTRACTION, llm=scripted_llm)

    assert [m.role for m in conversation.messages.all()] == ["user", "assistant"]
    assert reply.content == "hello there"  # the scripted model echoes when unscripted


def test_it_rejects_an_empty_message(alice):
    conversation = Conversation.objects.create(user=alice)
    with pytest.raises(chat.ChatInputError):
        chat.start_turn(conversation, "   ", enqueue_extraction=ENQUEUE_EXTRACTION)
    assert not conversation.messages.exists()


def test_it_purges_temporary_chats_older_than_a_day(alice):
    old = Conversation.objects.create(user=alice, temporary=True)
    Conversation.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=25))
    recent = Conversation.objects.create(user=alice, temporary=True)
    kept = Conversation.objects.create(user=alice)
    Conversation.objects.filter(pk=kept.pk).update(created_at=timezone.now() - timedelta(days=3))

    assert purge_temporary() == 1
    assert set(Conversation.objects.values_list("pk", flat=True)) == {recent.pk, kept.pk}


def test_it_answers_without_a_model_when_none_is_configured(alice_client, alice, monkeypatch):
    from memoryapp.providers.llm import get_llm, reset_llm
    from tests.support.fixtures import configure_llm

    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    try:
        assert get_llm() is None
        conversation = Conversation.objects.create(user=alice)
        turn, reply = chat.chat_turn(conversation, "Hello, I like green tea", enqueue_extraction=ENQUEUE_EXTRACTION)
        assert reply is not None and reply.content.strip()
        page = alice_client.get(f"/c/{conversation.pk}/").content.decode()
        assert "No language model is configured" in page
    finally:
        reset_llm()
