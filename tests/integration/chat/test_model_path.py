"""What a turn with a model is handed (engine/chat/offer.py): more than the offline three, numbered, within
its token cap; small talk and a general question nothing. Through the real chat turn, no model running."""

from __future__ import annotations

import pytest

from conversations.models import Conversation
from memoryapp.engine.chat import offer
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.memories.write import add_memory

pytestmark = pytest.mark.django_db

MEMORIES = (
    "I am vegetarian",
    "I cook dinner for my two kids on weekdays",
    "My daughter is allergic to peanuts",
    "I don't own an oven, only a stovetop",
    "I try to keep weeknight dinners under 30 minutes",
    "我老公不吃辣",
    "I am training for a half marathon in May",
)


@pytest.fixture
def stored(alice):
    return [add_memory(alice, text, kind="fact").memory for text in MEMORIES]


def _turn(alice, text: str, *, for_model: bool):
    conversation = Conversation.objects.create(user=alice)
    return start_turn(
        conversation, text, llm=None, for_model=for_model, enqueue_extraction=lambda conversation_id, message_ids: None
    )


def test_a_model_is_handed_a_wider_numbered_set_than_the_offline_choice(alice, stored):
    asked = "What should I cook for dinner tonight for my family?"
    offline, model = _turn(alice, asked, for_model=False), _turn(alice, asked, for_model=True)

    assert len(offline.recalled) <= 3 < len(model.recalled)
    assert {item.memory.pk for item in offline.recalled} <= {item.memory.pk for item in model.recalled}
    system = model.prompt[0]["content"]
    assert "[1] " in system and "in square brackets" in system
    assert not offline.numbered and "[1] " not in offline.prompt[0]["content"]
    assert 0 < model.memory_tokens <= offer.MEMORY_TOKENS


def test_the_model_path_keeps_within_its_token_cap(alice, stored, monkeypatch):
    monkeypatch.setattr(offer, "MEMORY_TOKENS", 20)
    turn = _turn(alice, "What should I cook for dinner tonight for my family?", for_model=True)
    assert 1 <= len(turn.recalled) < len(MEMORIES) and turn.memory_tokens <= 20


@pytest.mark.parametrize("text", ["thanks!", "哈哈好的", "what's the capital of Peru?"])
def test_small_talk_and_general_questions_are_handed_nothing(alice, stored, text):
    turn = _turn(alice, text, for_model=True)
    assert turn.recalled == [] and turn.memory_tokens == 0 and "<memories>" not in turn.prompt[0]["content"]
