""" "Remember this" on a chat message (conversations/views.py `remember`, engine/learning/remember.py): it saves now,
in place, or says why not; on the embedded default (offline model) and with a model."""

from __future__ import annotations

import pytest

from conversations.models import Conversation, Message
from memoryapp.engine.learned.model import rules_only
from memoryapp.models import Actor, EventAction, Memory, MemoryEvent, MemorySettings, MemorySource, MemoryStatus
from memoryapp.pipeline.models import MemorySuggestion

pytestmark = pytest.mark.django_db


def _said(user, text: str, role: str = "user") -> Message:
    conversation = Conversation.objects.create(user=user)
    return Message.objects.create(conversation=conversation, role=role, content=text)


def _remember(client, message: Message, **headers) -> str:
    response = client.post(f"/c/{message.conversation_id}/messages/{message.pk}/remember/", **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_it_keeps_a_message_the_extractor_passes_over_as_written(alice_client, alice, use_offline_llm):
    message = _said(alice, "The cabin's wifi only works near the kitchen window.")

    with rules_only():  # the rules pass this over (the trained default may keep it)
        fragment = _remember(alice_client, message)

    memory = Memory.objects.get(user=alice)
    assert memory.content == "The cabin's wifi only works near the kitchen window."
    assert memory.status == MemoryStatus.ACTIVE and memory.source == MemorySource.MANUAL
    assert memory.source_message_id == message.pk and memory.source_conversation_id == message.conversation_id
    assert MemoryEvent.objects.filter(memory=memory, action=EventAction.CREATED, actor=Actor.USER).exists()
    assert "Remembered:" in fragment and "The cabin&#x27;s wifi only works" in fragment
    assert f"/settings/memories?focus={memory.pk}" in fragment  # view it
    undo = f"/c/{message.conversation_id}/memories/{memory.pk}/revert/"
    assert undo in fragment
    assert "forgotten" in alice_client.post(undo).content.decode()
    memory.refresh_from_db()
    assert memory.status == MemoryStatus.DELETED


def test_it_saves_what_the_extractor_finds_in_the_message(alice_client, alice, use_offline_llm):
    message = _said(alice, "I like oolong tea. What should I cook tonight?")
    fragment = _remember(alice_client, message)
    assert list(Memory.objects.filter(user=alice).values_list("content", "kind")) == [
        ("I like oolong tea", "preference")
    ]
    assert "«I like oolong tea»" in fragment


def test_it_answers_in_chinese(alice_client, alice, use_offline_llm):
    message = _said(alice, "周末去爬山的装备放在车库左边的柜子里")
    fragment = _remember(alice_client, message, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert Memory.objects.get(user=alice).content == "周末去爬山的装备放在车库左边的柜子里"
    assert "已记住：" in fragment and "撤销" in fragment


def test_it_refuses_a_secret_and_says_why(alice_client, alice, use_offline_llm):
    message = _said(alice, "Our wifi password is hunter2-cabin")
    fragment = _remember(alice_client, message)
    assert not Memory.objects.filter(user=alice).exists()
    assert "Not saved" in fragment and "password" in fragment
    zh = _remember(alice_client, _said(alice, "我的银行卡号是 6222 0202 0202 0202"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "未保存" in zh and not Memory.objects.filter(user=alice).exists()


def test_it_saves_with_auto_learn_off(alice_client, alice, use_offline_llm):
    MemorySettings.objects.update_or_create(user=alice, defaults={"auto_extract": False})
    _remember(alice_client, _said(alice, "I live in Lisbon"))
    assert Memory.objects.get(user=alice).content == "I live in Lisbon"  # asked for: saved, not a suggestion
    assert not MemorySuggestion.objects.filter(user=alice).exists()


def test_it_says_memory_is_off_and_saves_nothing(alice_client, alice, use_offline_llm):
    MemorySettings.objects.update_or_create(user=alice, defaults={"memory_enabled": False})
    fragment = _remember(alice_client, _said(alice, "I live in Lisbon"))
    assert "Memory is off" in fragment and not Memory.objects.filter(user=alice).exists()


def test_it_says_when_it_already_remembers_it(alice_client, alice, use_offline_llm):
    _remember(alice_client, _said(alice, "I live in Lisbon"))
    fragment = _remember(alice_client, _said(alice, "I live in Lisbon"))
    assert "Already remembered:" in fragment and Memory.objects.filter(user=alice).count() == 1


def test_it_refuses_another_users_message(alice_client, bob):
    message = _said(bob, "I live in Lisbon")
    response = alice_client.post(f"/c/{message.conversation_id}/messages/{message.pk}/remember/")
    assert response.status_code == 404 and not Memory.objects.exists()


def test_it_saves_with_a_model(alice_client, alice, llm_server, use_scripted_llm):
    llm_server.script(
        "[memoryapp:extract]",
        '{"candidates": [{"content": "Works night shifts at the hospital", '
        '"kind": "fact", "importance": 0.7, "confidence": 0.9}]}',
    )
    fragment = _remember(alice_client, _said(alice, "ugh, night shift again at the hospital"))
    assert Memory.objects.get(user=alice).content == "Works night shifts at the hospital"
    assert "Remembered:" in fragment


@pytest.mark.parametrize(
    "reply",
    [
        "No language model is configured, so I can't give a real answer (offline mode; set OPENAI_BASE_URL or "
        "OPENAI_API_KEY to connect one).\nNo stored memories match this message.",
        "尚未配置语言模型，所以我无法真正回答（离线模式；设置 OPENAI_BASE_URL 或 OPENAI_API_KEY 即可接入）。\n记忆中：\n- 我住在杭州",
    ],
)
def test_the_apps_own_offline_notice_is_not_kept_and_the_button_says_why(alice_client, alice, use_offline_llm, reply):
    message = _said(alice, reply, role="assistant")

    fragment = _remember(alice_client, message)

    assert not Memory.objects.filter(user=alice).exists()
    assert "own notice" in fragment


def test_another_assistant_reply_is_still_kept(alice_client, alice, use_offline_llm):
    message = _said(alice, "The museum is closed on Mondays; go on Tuesday morning.", role="assistant")

    _remember(alice_client, message)

    assert Memory.objects.filter(user=alice, content__contains="closed on Mondays").exists()
