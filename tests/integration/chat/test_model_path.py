"""What a turn with a model is handed (engine/chat/offer.py): more than the offline three, numbered, within
its token cap; small talk and a general question nothing. Through the real chat turn, no model running."""

from __future__ import annotations

import pytest
from django.test import override_settings

from conversations.models import Conversation
from memoryapp.engine.chat import offer
from memoryapp.engine.chat.chat import start_turn
from memoryapp.engine.memories.write import add_memory
from memoryapp.engine.text import count_tokens

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
    assert 0 < model.memory_tokens <= offer.memory_tokens()


@override_settings(CHAT_MODEL_MEMORY_TOKENS=20)
def test_the_model_path_keeps_within_its_token_cap(alice, stored):
    turn = _turn(alice, "What should I cook for dinner tonight for my family?", for_model=True)
    assert 1 <= len(turn.recalled) < len(MEMORIES) and turn.memory_tokens <= 20


@override_settings(CHAT_MODEL_MEMORY_LINES=2, CHAT_MODEL_MEMORY_TOKENS=10_000)
def test_the_model_path_keeps_within_its_line_cap(alice, stored):
    turn = _turn(alice, "What should I cook for dinner tonight for my family?", for_model=True)
    assert len(turn.recalled) == 2


LONG = (
    "My partner and I share one car, a 2016 Honda Fit, so on Tuesdays and Thursdays I take the number 12 bus "
    "to the office and the car is hers"
)


def test_past_the_chosen_memories_each_is_handed_in_one_numbered_line(alice, stored):
    """A long memory that is not among the relevance model's few picks reaches a model as its first words,
    numbered like the rest, so more of them fit the same tokens."""
    add_memory(alice, LONG, kind="fact")
    turn = _turn(alice, "What should I cook for dinner tonight for my family?", for_model=True)
    lines = [line for line in turn.prompt[0]["content"].splitlines() if line.startswith("[")]
    long_line = next(line for line in lines if "Honda Fit" in line or "partner and I share" in line)
    assert long_line.endswith("…") and len(long_line) < len(LONG) / 2
    assert [line.split("]")[0] for line in lines] == [f"[{n}" for n in range(1, len(lines) + 1)]
    assert len(lines) == len(turn.recalled)


def test_a_one_liner_keeps_a_short_memory_whole_and_cuts_a_long_one_between_words():
    assert offer.one_liner("I am vegetarian") == "I am vegetarian"
    assert offer.one_liner("我对花生过敏") == "我对花生过敏"
    short = offer.one_liner(LONG)
    assert short.endswith("…") and LONG.startswith(short[:-1]) and LONG[len(short) - 1] in " ,"
    assert count_tokens(short) <= offer.ONE_LINE_TOKENS
    chinese = offer.one_liner("林老师在杭州一所中学教高二数学，带两个班，周三下午有教研活动，周五晚上要值班。")
    assert chinese.endswith("…") and count_tokens(chinese) <= offer.ONE_LINE_TOKENS


@pytest.mark.parametrize("text", ["thanks!", "哈哈好的", "what's the capital of Peru?"])
def test_small_talk_and_general_questions_are_handed_nothing(alice, stored, text):
    turn = _turn(alice, text, for_model=True)
    assert turn.recalled == [] and turn.memory_tokens == 0 and "<memories>" not in turn.prompt[0]["content"]
