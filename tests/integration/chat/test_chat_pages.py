"""The chat page and its POST endpoints, scoped to the owner."""

from __future__ import annotations

import html

import pytest

from conversations.models import Conversation, Message
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Memory, MemoryEvent, MemoryStatus

pytestmark = pytest.mark.django_db


def _chat(user, title="", temporary=False, said="hello"):
    conversation = Conversation.objects.create(user=user, title=title, temporary=temporary)
    if said:
        Message.objects.create(conversation=conversation, role="user", content=said)
    return conversation


def test_it_shows_the_chat_page_with_kept_chats_only(alice_client, alice):
    _chat(alice, "Holiday plans")
    _chat(alice, "Secret temp", temporary=True)
    page = alice_client.get("/").content.decode()
    assert "Holiday plans" in page and "Secret temp" not in page
    assert 'ws-connect="/ws/chat/' in page


def test_it_reuses_one_empty_chat_instead_of_piling_them_up(alice_client, alice):
    alice_client.get("/")
    alice_client.get("/")
    assert Conversation.objects.filter(user=alice).count() == 1


def test_it_searches_chats_by_title(alice_client, alice):
    _chat(alice, "Holiday plans")
    _chat(alice, "Tax return")
    fragment = alice_client.get("/c/?q=holi").content.decode()
    assert "Holiday plans" in fragment and "Tax return" not in fragment


def test_it_renames_and_deletes_a_chat(alice_client, alice):
    conversation = _chat(alice, "Old")
    assert alice_client.post(f"/c/{conversation.pk}/rename/", {"title": "New name"}).status_code == 302
    conversation.refresh_from_db()
    assert conversation.title == "New name"
    assert alice_client.post(f"/c/{conversation.pk}/delete/").status_code == 302
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_it_starts_a_temporary_chat_and_drops_it_when_leaving(alice_client, alice):
    response = alice_client.post("/c/new/", {"temporary": "on"})
    temporary = Conversation.objects.get(user=alice, temporary=True)
    assert response["Location"] == f"/c/{temporary.pk}/"
    assert "Temporary chat is on" in alice_client.get(response["Location"]).content.decode()
    alice_client.get("/")
    assert not Conversation.objects.filter(pk=temporary.pk).exists()


def test_it_remembers_the_message_in_place(alice_client, alice):
    conversation = _chat(alice, "Chat")
    message = conversation.messages.get()
    page = alice_client.post(f"/c/{conversation.pk}/messages/{message.pk}/remember/").content.decode()
    memory = Memory.objects.get(
        user=alice, source_message=message
    )  # more: tests/integration/chat/test_remember_this.py
    assert "Remembered:" in page and f"/settings/memories?focus={memory.pk}" in page


def test_it_undoes_a_memory_learnt_in_the_chat(alice_client, alice):
    conversation = _chat(alice, "Chat")
    memory = add_memory(alice, "I live in Lisbon", source_conversation_id=conversation.pk).memory
    response = alice_client.post(f"/c/{conversation.pk}/memories/{memory.pk}/undo/")
    assert response.status_code == 200
    memory.refresh_from_db()
    assert memory.status == MemoryStatus.DELETED
    assert MemoryEvent.objects.filter(memory=memory, action="deleted").exists()


def test_it_renders_markdown_safely(alice_client, alice):
    conversation = _chat(alice, "Md")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="**bold** <script>alert(1)</script> [x](javascript:alert(1))",
    )
    page = alice_client.get(f"/c/{conversation.pk}/").content.decode()
    assert "<strong>bold</strong>" in page
    assert "<script>alert(1)</script>" not in page and 'href="javascript' not in page


@pytest.mark.parametrize(
    "said, note",
    [
        ("remember that my passport number is E12345678", "I won't keep a passport number"),
        ("记住我的护照号码是E12345678", "护照号码不会被记住"),
    ],
)
def test_a_secret_said_in_the_chat_is_answered_with_why_it_is_not_kept(alice_client, alice, said, note):
    conversation = _chat(alice, "Travel", said=said)

    page = alice_client.get(f"/c/{conversation.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans" if "护照" in said else "en")

    assert note in html.unescape(page.content.decode())


def test_an_ordinary_message_carries_no_secret_note(alice_client, alice):
    conversation = _chat(alice, "Travel", said="My passport expires in March")

    assert "never stored" not in alice_client.get(f"/c/{conversation.pk}/").content.decode()


def test_a_chat_search_with_no_match_says_so_not_that_there_are_no_chats(alice_client, alice):
    _chat(alice, "Holiday plans")

    fragment = alice_client.get("/c/?q=zzzz").content.decode()

    assert "No chats match." in fragment and "No chats yet" not in fragment
