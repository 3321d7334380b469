"""Memory in the chat itself (engine/chat/memory_commands.py): "what do you remember about me?" lists what is
stored; "forget that ..." forgets the memory meant, says which and offers Undo; both languages, on the
embedded default (offline model) through the REST chat, and with a model through the chat websocket."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from conversations.models import Conversation
from memoryapp.engine.memories.write import add_memory
from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemorySettings, MemoryStatus
from tasks.extraction import extract_messages
from tests.support.llm_server import CHAT_TURN
from tests.support.sockets import REPLY_SAVED, chat_socket, frames_until

pytestmark = pytest.mark.django_db(transaction=True)

MEMORIES = [
    ("I live in Berlin", "fact"),
    ("I like oolong tea", "preference"),
    ("I work at Acme as a designer", "fact"),
    ("我养了一只猫，叫咪咪", "fact"),
    ("我喜欢喝乌龙茶", "preference"),
    ("My address is 12 Oak Street", "fact"),
    ("I want to run a marathon this year", "goal"),
]


@pytest.fixture
def stored(alice) -> dict[str, Memory]:
    return {content: add_memory(alice, content, kind=kind).memory for content, kind in MEMORIES}


def _say(client, conversation: Conversation, text: str) -> dict:
    response = client.post(
        f"/api/conversations/{conversation.pk}/messages", {"content": text}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize(
    "text",
    [
        "What do you remember about me?",
        "what do you know about me",
        "list my memories",
        "Show me everything you remember about me.",
    ],
)
def test_it_lists_what_it_remembers_grouped_by_kind(alice_client, alice, stored, use_offline_llm, text):
    conversation = Conversation.objects.create(user=alice)
    turn = _say(alice_client, conversation, text)
    reply = turn["reply"]["content"]
    assert "No stored memories match" not in reply
    assert reply.index("**Preferences** (2)") < reply.index("**Facts** (4)") < reply.index("**Goals** (1)")
    for content, _kind in MEMORIES:
        assert content in reply
    assert "(/settings/memories)" in reply
    assert turn["reply"]["memory_command"]["outcome"] == "listed"
    assert all(m.status == MemoryStatus.ACTIVE for m in Memory.objects.filter(user=alice))


@pytest.mark.parametrize("text", ["你记得我什么？", "你都记住了我哪些事", "列出我的记忆"])
def test_it_lists_what_it_remembers_in_chinese(alice_client, alice, stored, use_offline_llm, text):
    conversation = Conversation.objects.create(user=alice)
    reply = _say(alice_client, conversation, text)["reply"]["content"]
    assert "**偏好** (2)" in reply and "**事实** (4)" in reply and "我养了一只猫，叫咪咪" in reply
    assert "记忆页面" in reply and "没有与这条消息相关的记忆" not in reply


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Forget that I live in Berlin.", "I live in Berlin"),
        ("忘掉我喜欢喝乌龙茶这件事。", "我喜欢喝乌龙茶"),
        ("别再记着我养猫了", "我养了一只猫，叫咪咪"),
        ("please forget my address", "My address is 12 Oak Street"),
        ("delete the memory that I work at Acme", "I work at Acme as a designer"),
    ],
)
def test_it_forgets_the_memory_named_and_offers_undo(alice_client, alice, stored, use_offline_llm, text, meant):
    conversation = Conversation.objects.create(user=alice)
    turn = _say(alice_client, conversation, text)
    memory = stored[meant]
    memory.refresh_from_db()
    assert memory.status == MemoryStatus.DELETED
    assert Memory.objects.filter(user=alice, status=MemoryStatus.ACTIVE).count() == len(MEMORIES) - 1
    assert MemoryEvent.objects.filter(memory=memory, action=EventAction.DELETED, actor=Actor.USER).exists()
    reply = turn["reply"]
    assert meant in reply["content"] and ("Forgotten" in reply["content"] or "已忘掉" in reply["content"])
    assert reply["memory_command"] == {"intent": "forget", "outcome": "forgot", "memory_ids": [memory.pk]}
    assert reply["citations"] == []

    page = alice_client.get(f"/c/{conversation.pk}/").content.decode()
    undo = f"/c/{conversation.pk}/memories/{memory.pk}/restore/"
    assert undo in page
    assert alice_client.post(undo).status_code == 200
    memory.refresh_from_db()
    assert memory.status == MemoryStatus.ACTIVE


def test_it_asks_which_when_several_memories_match(alice_client, alice, use_offline_llm):
    tom = add_memory(alice, "I have a cat called Tom", kind="fact").memory
    mimi = add_memory(alice, "I have a cat called Mimi", kind="fact").memory
    add_memory(alice, "I live in Berlin", kind="fact")
    conversation = Conversation.objects.create(user=alice)

    reply = _say(alice_client, conversation, "Forget my cat")["reply"]

    assert reply["memory_command"]["outcome"] == "ask"
    assert set(reply["memory_command"]["memory_ids"]) == {tom.pk, mimi.pk}
    assert "Which one should I forget?" in reply["content"]
    assert not Memory.objects.filter(user=alice).exclude(status=MemoryStatus.ACTIVE).exists()
    page = alice_client.get(f"/c/{conversation.pk}/").content.decode()
    forget_mimi = f"/c/{conversation.pk}/memories/{mimi.pk}/forget/"
    assert forget_mimi in page and f"/c/{conversation.pk}/memories/{tom.pk}/forget/" in page
    fragment = alice_client.post(forget_mimi).content.decode()
    assert "forgotten" in fragment and f"/memories/{mimi.pk}/restore/" in fragment
    mimi.refresh_from_db()
    tom.refresh_from_db()
    assert mimi.status == MemoryStatus.DELETED and tom.status == MemoryStatus.ACTIVE


@pytest.mark.parametrize("text", ["Forget that I live in Munich", "忘掉我住在北京这件事"])
def test_it_asks_before_forgetting_a_memory_that_only_resembles_what_was_named(
    alice_client, alice, stored, use_offline_llm, text
):
    conversation = Conversation.objects.create(user=alice)
    reply = _say(alice_client, conversation, text)["reply"]
    assert reply["memory_command"]["outcome"] == "ask"
    assert stored["I live in Berlin"].pk in reply["memory_command"]["memory_ids"]
    assert not Memory.objects.filter(user=alice).exclude(status=MemoryStatus.ACTIVE).exists()  # nothing yet


def test_it_says_when_nothing_matches(alice_client, alice, stored, use_offline_llm):
    conversation = Conversation.objects.create(user=alice)
    reply = _say(alice_client, conversation, "Forget that I play golf on Sundays")["reply"]
    assert reply["memory_command"]["outcome"] == "nothing"
    assert "I found nothing matching" in reply["content"]
    assert not Memory.objects.filter(user=alice).exclude(status=MemoryStatus.ACTIVE).exists()


def test_it_says_memory_is_off_and_changes_nothing(alice_client, alice, stored, use_offline_llm):
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    conversation = Conversation.objects.create(user=alice)
    assert "Memory is off" in _say(alice_client, conversation, "Forget that I live in Berlin")["reply"]["content"]
    assert "Memory is off" in _say(alice_client, conversation, "What do you remember about me?")["reply"]["content"]
    assert not Memory.objects.filter(user=alice).exclude(status=MemoryStatus.ACTIVE).exists()

    temporary = Conversation.objects.create(user=alice, temporary=True)
    MemorySettings.objects.filter(user=alice).update(memory_enabled=True)
    reply = _say(alice_client, temporary, "你记得我什么？")["reply"]["content"]
    assert "临时对话" in reply and "我养了一只猫" not in reply


def test_it_does_not_learn_from_a_memory_command(alice_client, alice, stored, use_offline_llm):
    conversation = Conversation.objects.create(user=alice)
    _say(alice_client, conversation, "Forget that I live in Berlin.")
    _say(alice_client, conversation, "忘掉我喜欢喝乌龙茶这件事。")
    _say(alice_client, conversation, "What do you remember about me?")

    extract_messages(conversation.pk, list(conversation.messages.values_list("pk", flat=True)))

    assert Memory.objects.filter(user=alice).count() == len(MEMORIES)  # nothing new learnt
    assert Memory.objects.get(content="I live in Berlin").status == MemoryStatus.DELETED


async def test_it_forgets_with_a_model_over_the_chat_socket(alice, llm_server, use_scripted_llm):
    berlin = await sync_to_async(lambda: add_memory(alice, "I live in Berlin", kind="fact").memory)()
    await sync_to_async(add_memory)(alice, "I like oolong tea", kind="preference")
    conversation = await sync_to_async(Conversation.objects.create)(user=alice)
    socket = chat_socket(alice, conversation.pk)
    assert (await socket.connect())[0]
    try:
        await socket.send_json_to({"action": "send", "text": "Could you forget that I live in Berlin?"})
        frames = await frames_until(socket, REPLY_SAVED)
        await socket.send_json_to({"action": "send", "text": "what do you know about me"})
        listing = await frames_until(socket, REPLY_SAVED)
    finally:
        await socket.disconnect()
    await sync_to_async(berlin.refresh_from_db)()
    assert berlin.status == MemoryStatus.DELETED
    assert "Forgotten" in frames and f"/c/{conversation.pk}/memories/{berlin.pk}/restore/" in frames
    assert "I like oolong tea" in listing and "I live in Berlin" not in listing
    assert llm_server.chat_requests(CHAT_TURN) == []  # the app answers such turns itself
