"""One question vocabulary (engine/questions.py) for the extraction rules, chat episodes and the chat's
relevance model: a sentence that asks is not memory material, and a message that asks or requests is one
of the relevance model's inputs."""

from __future__ import annotations

import numpy as np
import pytest

from memoryapp.engine.learned.relevance import MessageShape, asks_about_self
from memoryapp.engine.llm.defaults import classify
from memoryapp.engine.questions import asks, is_question, wants


@pytest.mark.parametrize(
    "sentence",
    [
        "what editor should I use?",
        "Can you shorten this",
        "这个周末去哪玩比较好呢",
        "你觉得是不是太贵了",
        "really?!",
        "真的吗？😂",
    ],
)
def test_a_question_is_one(sentence):
    assert is_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "can't stand cilantro",
        "我什么都吃",
        "我有几个朋友在深圳",
        "哪里都行",
        "I work night shifts",
    ],
)
def test_a_statement_with_a_question_word_in_it_is_not(sentence):
    # The relevance model's own pattern took these for questions ("can", 什么, 几, 哪 anywhere).
    assert not is_question(sentence)


def test_the_extraction_rules_drop_what_asks_and_keep_what_tells():
    assert classify("我不吃香菜吗") is None
    assert classify("I prefer Python for scripting") is not None


def test_a_question_inside_a_longer_message_counts():
    assert asks("btw 我这个月的 deadline 还来得及吗，还剩两周，帮我排个计划")
    assert not asks("周一好难熬啊😩 还有四天才周末")


@pytest.mark.parametrize(
    "message",
    [
        "帮我写个 one-pager 给老板",
        "help me plan meals for next week",
        "recommend a few dishes",
        "去医院前我的药盒要怎么准备",
        "should I push the hotfix tomorrow",
    ],
)
def test_a_request_wants_an_answer(message):
    assert wants(message)


def test_the_relevance_model_reads_the_same_vocabulary():
    for message in ("我有几个朋友在深圳", "帮我排个计划", "what's up?"):
        assert MessageShape.of(message, False, 0.5, np.ones(4)).question == wants(message)


@pytest.mark.parametrize(
    "message, through",
    [
        ("帮我排一下这周的计划", True),
        ("我们这个仓库的 CI 流水线怎么配比较好？", True),
        ("lol my roommate just burnt the rice again", False),  # tells, asks nothing: the gate decides
        ("我家猫刚刚把杯子推下桌了 笑死", False),
        ("what's the capital of Peru?", False),  # asks, but not of the user
    ],
)
def test_only_a_message_that_asks_in_the_first_person_passes_the_gate_unread(message, through):
    assert asks_about_self(message) is through
