"""What a chat turn recalls with: named bilingual scenarios."""

from __future__ import annotations

import pytest

from memoryapp.engine.chat.chat_query import chat_recall_query, is_small_talk
from memoryapp.engine.text import leans_on_previous

DOCKER = "My Docker builds keep timing out on the network."


@pytest.mark.parametrize(
    "message",
    [
        "hi",
        "Hello!",
        "ok",
        "OK, thanks!",
        "thank you so much 🙏",
        "good morning :)",
        "lol",
        "haha nice",
        "👍",
        "...",
        "你好",
        "谢谢！",
        "好的",
        "好的，谢谢",
        "哈哈哈哈",
        "晚安~",
        "收到",
        "嗯嗯，明白了",
    ],
)
def test_small_talk_recalls_nothing_whatever_came_before(message):
    assert is_small_talk(message)
    assert chat_recall_query(message, [DOCKER]) is None


@pytest.mark.parametrize(
    "message",
    [
        "hi, what should I cook tonight?",
        "thanks, and what about the flight?",
        "ok so which laptop should I buy",
        "你好，帮我推荐一家餐厅",
        "谢谢，那明天的会议几点？",
        "好吃的火锅店有哪些",
        "no nuts in it please",
    ],
)
def test_a_request_wrapped_in_small_talk_still_recalls(message):
    assert not is_small_talk(message)
    assert chat_recall_query(message, [DOCKER]) is not None


def test_the_new_message_leads_and_stands_alone_when_it_can():
    """The headline scenario: the docker lesson is found by the message's own words, with nothing of the
    assistant's reply (which the caller never passes) and nothing of an unrelated earlier turn."""
    query = chat_recall_query(
        "I'm about to start docker compose, anything to remember?", ["What's a good name for a cat?"]
    )
    assert query.text == "I'm about to start docker compose, anything to remember?" and query.about_user


@pytest.mark.parametrize(
    ("message", "previous"),
    [
        ("ok, go with the first option", "Should I use Postgres or SQLite for the side project?"),
        ("what about for her birthday then?", "Any gift ideas for my daughter?"),
        ("那就按第二个方案", "周末去杭州还是苏州玩？"),
        ("那周末呢？", "我这周哪天适合去健身房？"),
        ("and the other one?", "Which of my two laptops is better for gaming?"),
    ],
)
def test_a_follow_up_borrows_the_users_previous_message(message, previous):
    assert leans_on_previous(message)
    assert chat_recall_query(message, ["an older message", previous]).text == f"{message}\n{previous}"


@pytest.mark.parametrize(
    "message",
    [
        "Can you suggest a vegetarian restaurant near the office for Friday's team lunch?",
        "帮我规划一下下个月去东京的行程，五天四晚",
        "What's the capital of Australia?",
    ],
)
def test_a_message_that_stands_on_its_own_does_not_borrow(message):
    assert not leans_on_previous(message)
    assert chat_recall_query(message, ["Any gift ideas for my daughter?"]).text == message


def test_a_follow_up_at_the_start_of_a_chat_has_nothing_to_borrow():
    assert chat_recall_query("那就按第二个方案", []).text == "那就按第二个方案"


@pytest.mark.parametrize(
    ("message", "about_user"),
    [
        ("What's the capital of Australia?", False),
        ("解释一下什么是量子纠缠", False),
        ("write a regex for US zip codes", False),
        ("Can you plan a dinner I can eat tonight?", True),
        ("我周末想去爬山，帮我看看天气", True),
        ("what should we cook for our anniversary?", True),
        ("咱们明天几点出发？", True),
    ],
)
def test_it_tells_a_message_about_the_user_from_one_about_the_world(message, about_user):
    assert chat_recall_query(message, []).about_user is about_user


def test_a_follow_up_speaks_of_the_user_when_the_message_it_leans_on_does():
    assert chat_recall_query("那周末呢？", ["我这周哪天适合去健身房？"]).about_user


@pytest.mark.parametrize(
    "message",
    [
        "My neighbour wants to start running, any tips?",
        "我朋友想学游泳，怎么入门？",
        "a guy on my team says his knee hurts when he runs, what should he do?",
        "帮我表姐问一下，考研选什么学校好",
        "My neighbor's dad keeps forgetting his evening pills. Are there gadgets that help?",
    ],
)
def test_a_question_on_behalf_of_someone_else_recalls_nothing(message):
    assert chat_recall_query(message, []) is None


@pytest.mark.parametrize(
    "message",
    [
        "My friend and I are training for a marathon together, how should we plan?",
        "我同事约我周末去爬山，走哪条线好？",
        "what should I get my colleague for her birthday?",
        "My sister is visiting next week, where should I take her?",  # family is the user's life
    ],
)
def test_the_users_own_part_beside_someone_else_still_recalls(message):
    assert chat_recall_query(message, []) is not None
