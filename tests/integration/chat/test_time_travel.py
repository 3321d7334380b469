"""Asking the chat about the past: "what did I prefer five months ago?", "我以前喜欢什么？". The turn recalls
what was true then and hands the old version to the model as old, with what replaced it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from conversations.models import Conversation
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.memories.write import add_memory, supersede_memory
from tasks.extraction import extract_messages

pytestmark = pytest.mark.django_db

VUE = "我喜欢用 Vue 3 写前端"
REACT = "我现在更喜欢用 React 写前端"


@pytest.fixture
def frameworks(alice):
    """Vue from ten months ago, replaced by React two months ago; a memory about tea all along."""
    now = timezone.now()
    vue = add_memory(alice, VUE, kind="preference", valid_from=now - timedelta(days=300)).memory
    react = supersede_memory(vue, REACT, valid_from=now - timedelta(days=60)).memory
    add_memory(alice, "用户不喝咖啡，只喝龙井绿茶。", kind="preference", valid_from=now - timedelta(days=300))
    vue.refresh_from_db()
    return vue, react


def turn(alice, message: str):
    return start_turn(
        Conversation.objects.create(user=alice), message, enqueue_extraction=extract_messages.delay_on_commit
    )


def system_prompt(result) -> str:
    return result.prompt[0]["content"]


@pytest.mark.parametrize(
    "message", ["Which frontend framework did I like five months ago?", "5个月前我喜欢用什么前端框架？"]
)
def test_a_question_about_a_named_past_recalls_the_version_true_then_as_old(alice, frameworks, message):
    vue, react = frameworks
    result = turn(alice, message)
    recalled = [item.memory.pk for item in result.recalled]
    assert vue.pk in recalled and react.pk not in recalled  # React was not yet true five months ago
    prompt = system_prompt(result)
    assert VUE in prompt
    assert vue.valid_until.date().isoformat() in prompt and REACT in prompt  # old, and what replaced it


def test_a_vague_past_recalls_every_version_and_marks_the_old_one(alice, frameworks):
    vue, react = frameworks
    result = turn(alice, "我以前喜欢用什么前端框架？")
    recalled = [item.memory.pk for item in result.recalled]
    assert vue.pk in recalled and react.pk in recalled
    prompt = system_prompt(result)
    old_line = next(line for line in prompt.splitlines() if VUE in line)
    assert vue.valid_until.date().isoformat() in old_line
    current_line = next(
        line for line in prompt.splitlines() if line.startswith("- ") and REACT in line and VUE not in line
    )
    assert "until" not in current_line and "直到" not in current_line


def test_the_present_sees_only_the_current_version(alice, frameworks):
    vue, react = frameworks
    result = turn(alice, "Which frontend framework do I prefer?")
    recalled = [item.memory.pk for item in result.recalled]
    assert react.pk in recalled and vue.pk not in recalled
    assert VUE not in system_prompt(result)


def test_a_plan_for_a_month_ahead_is_not_the_past(alice, frameworks):
    vue, _ = frameworks
    result = turn(alice, "I'm going to rewrite my frontend in March, which framework do I prefer?")
    assert vue.pk not in [item.memory.pk for item in result.recalled]


@pytest.mark.parametrize(
    "message",
    [
        "What did I prefer before React?",
        "what was I using prior to React?",
        "我用React之前喜欢什么？",
        "换到React以前我用的是什么",
    ],
)
def test_it_answers_what_came_before_from_the_chain_first_and_as_past(alice, frameworks, message):
    vue, react = frameworks
    result = turn(alice, message)
    assert result.recalled[0].memory.pk == vue.pk  # the version React replaced, ranked first
    old_line = next(line for line in system_prompt(result).splitlines() if VUE in line)
    assert vue.valid_until.date().isoformat() in old_line and REACT in old_line  # past, and what replaced it


def test_it_answers_before_a_place_and_follows_a_longer_chain_back(alice):
    now = timezone.now()
    beijing = add_memory(alice, "我以前住在北京海淀", kind="fact", valid_from=now - timedelta(days=700)).memory
    hangzhou = supersede_memory(beijing, "搬到杭州西湖边住了", valid_from=now - timedelta(days=400)).memory
    supersede_memory(hangzhou, "现在住在上海徐汇", valid_from=now - timedelta(days=100))
    add_memory(alice, "喜欢在周末去爬山", kind="preference", valid_from=now - timedelta(days=300))
    recalled = [item.memory.content for item in turn(alice, "在上海之前我住哪儿？").recalled]
    assert recalled[:2] == ["搬到杭州西湖边住了", "我以前住在北京海淀"]  # the nearest first
    before_hangzhou = [item.memory.content for item in turn(alice, "Where did I live before Hangzhou?").recalled]
    assert before_hangzhou[0] == "我以前住在北京海淀"


def test_a_question_about_what_to_do_before_something_is_not_the_past(alice, frameworks):
    vue, react = frameworks
    result = turn(alice, "What should I learn before I start my next React project?")
    assert vue.pk not in [item.memory.pk for item in result.recalled]


def test_the_chat_cites_what_came_before_as_past(alice_client, alice, frameworks, llm_server, use_scripted_llm):
    vue, _ = frameworks
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, "Before React you preferred Vue 3 [1].")
    response = alice_client.post(
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "What did I prefer before React?"},
        content_type="application/json",
    )
    first = response.json()["reply"]["citations"][0]
    assert first["memory_id"] == vue.pk and first["valid_until"] is not None
    page = alice_client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    chip = page[page.index('class="chip-icon"') :]
    assert chip.index("chip-past") < chip.index("</summary>")  # the first chip says "past"


def test_a_chip_whose_memory_replaced_another_says_what_it_was(
    alice_client, alice, frameworks, llm_server, use_scripted_llm
):
    _vue, react = frameworks
    conversation = Conversation.objects.create(user=alice)
    llm_server.script(None, "You prefer React [1].")
    response = alice_client.post(
        f"/api/conversations/{conversation.pk}/messages",
        {"content": "Which frontend framework do I prefer now?"},
        content_type="application/json",
    )
    assert response.json()["reply"]["citations"][0]["memory_id"] == react.pk
    page = alice_client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    was = page[page.index('class="chip-meta chip-was"') :].split("</p>")[0]
    assert f"Was: “{VUE}”, until" in was
