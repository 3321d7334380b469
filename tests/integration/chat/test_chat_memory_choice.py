"""Which memories a chat turn hands the model: named bilingual scenarios on the real recall path."""

from __future__ import annotations

import pytest

from conversations.models import Conversation, Message, Role
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.memories.write import add_memory
from tasks.extraction import extract_messages

ENQUEUE_EXTRACTION = extract_messages.delay_on_commit  # as the chat's edges queue extraction

pytestmark = pytest.mark.django_db

DOCKER = "Docker builds time out on my network; I have to run docker commands through proxy-env."
TEA = "用户不喝咖啡，只喝龙井绿茶。"


@pytest.fixture
def memories(alice):
    stored = {
        "docker": add_memory(alice, DOCKER, kind="lesson").memory,
        "tea": add_memory(alice, TEA, kind="preference").memory,
        "typescript": add_memory(
            alice, "Prefers TypeScript over JavaScript for new projects", kind="preference"
        ).memory,
        "video": add_memory(alice, "Wants to build a video-generation side project this year", kind="goal").memory,
        "name": add_memory(alice, "The user's name is Sam", kind="fact").memory,
    }
    return {memory.pk: key for key, memory in stored.items()}


def handed(alice, memories, message: str, history: tuple[tuple[str, str], ...] = ()) -> list[str]:
    conversation = Conversation.objects.create(user=alice)
    for role, text in history:
        Message.objects.create(conversation=conversation, role=role, content=text)
    turn = start_turn(conversation, message, enqueue_extraction=ENQUEUE_EXTRACTION)
    return [memories[item.memory.pk] for item in turn.recalled]


def test_the_docker_lesson_reaches_the_turn_that_needs_it_and_nothing_else_does(alice, memories):
    history = (
        (Role.USER, "What's a good name for a video about cats?"),
        (Role.ASSISTANT, "Try 'Whiskers in TypeScript' for a video-generation channel, Sam!"),
    )
    assert handed(alice, memories, "I'm about to start docker compose, anything to remember?", history) == ["docker"]


@pytest.mark.parametrize("message", ["hi", "thanks!", "ok", "你好", "谢谢！", "好的", "哈哈"])
def test_small_talk_gets_no_memory_even_after_a_memory_was_used(alice, memories, message):
    history = ((Role.USER, "Any docker tips before my build?"), (Role.ASSISTANT, "Run it through proxy-env."))
    assert handed(alice, memories, message, history) == []


def test_a_general_question_gets_no_memory(alice, memories):
    assert handed(alice, memories, "What is the capital of Australia?") == []
    assert handed(alice, memories, "解释一下什么是量子纠缠") == []


def test_a_chinese_memory_answers_an_english_question_and_back(alice, memories):
    assert "tea" in handed(alice, memories, "What do I like to drink? No coffee for me, right?")
    assert "docker" in handed(alice, memories, "我要跑 docker 构建了，有什么要注意的吗？")


@pytest.fixture
def episodes(alice, memories):
    """Chat episodes beside the typed memories: three from other chats, one about the staging plan."""
    stored = {
        "music": (
            "[2026-11-21 10:00] Talked about: I want to start a compose workflow for my music; "
            "What chords go well together"
        ),
        "laptop": "[2026-11-21 11:00] Talked about: I am setting up a new laptop; How do I install packages",
        "running": "[2026-11-20 09:00] Talked about: I want to start running again; How do I begin",
        "kubernetes": "[2026-11-20 09:00] We decided to move the staging stack to Kubernetes next week.",
    }
    for key, content in stored.items():
        memories[add_memory(alice, content, kind="episode").memory.pk] = key
    return memories


@pytest.mark.parametrize(
    "message", ["I'm about to start docker compose for the staging stack", "我准备启动预发环境的 docker compose 了"]
)
def test_a_turn_is_not_handed_the_episodes_of_chats_it_is_not_about(alice, episodes, message):
    recalled = handed(alice, episodes, message)
    assert "docker" in recalled
    assert not {"music", "laptop", "running"} & set(recalled)


def test_a_turn_about_what_a_chat_settled_is_handed_its_episode(alice, episodes):
    assert "kubernetes" in handed(alice, episodes, "When are we moving staging to Kubernetes?")
