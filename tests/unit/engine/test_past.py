"""Which chat messages ask about the past, and which moment (engine/recall/past.py). Seen from 23 Nov 2026."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryapp.engine.recall.past import named_before, past_reference

NOW = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "message, day",
    [
        ("What did I prefer in March?", "2026-03-31"),
        ("我三月份喜欢什么？", "2026-03-31"),
        ("我3月的时候用什么编辑器？", "2026-03-31"),
        ("What did I like in December?", "2025-12-31"),  # December is still ahead: last year's
        ("what was my job back in May 2025?", "2025-05-31"),
        ("2025年5月我住在哪里？", "2025-05-31"),
        ("去年三月我在学什么？", "2025-03-31"),
        ("5个月前我喜欢什么框架", "2026-06-26"),
        ("我两个月前用什么", "2026-09-24"),
        ("what did I say three months ago?", "2026-08-25"),
        ("what was I working on last month?", "2026-10-31"),
        ("上个月我在忙什么", "2026-10-31"),
        ("what did I have for dinner yesterday?", "2026-11-22"),
        ("half a year ago, what gym did I go to?", "2026-05-25"),
        ("半年前我在哪上班？", "2026-05-25"),
        ("In 2025 what was my job?", "2025-12-31"),
        ("去年我住在哪里", "2025-12-31"),
        ("during the summer what was my job", "2026-07-31"),
        ("去年夏天我住哪", "2025-07-31"),
        ("what did I drink at the start of the year", "2026-01-31"),
        ("过年那阵子我在干嘛", "2026-02-28"),
        ("去年这个时候我在做什么工作？", "2025-11-23"),
    ],
)
def test_a_named_past_becomes_the_moment_recall_looks_at(message, day):
    reference = past_reference(message, NOW)
    assert reference is not None and reference.at.date().isoformat() == day
    assert not reference.include_history


@pytest.mark.parametrize(
    "message",
    [
        "What did I use to drink?",
        "我以前喜欢喝什么",
        "我之前说过我喜欢什么",
        "What editor did I previously use?",
        "上次我们聊的那个项目叫什么？",
        "你记得我原来住哪吗",
    ],
)
def test_a_vague_past_recalls_every_version(message):
    reference = past_reference(message, NOW)
    assert reference is not None and reference.at is None and reference.include_history


@pytest.mark.parametrize(
    "message",
    [
        "hi",
        "What frontend framework do I prefer?",
        "我现在喜欢什么？",
        "I'm going to Japan in March",
        "我三月要去日本",
        "I will move to Lyon in May",  # plans, not the past
        "在开始之前，提醒我一下",
        "I may go to the gym",
        "What's on in November?",  # "before", "may", this month
        "三月以后我打算换工作",
        "我年底要搬家",
        "寒假想看几本书，给我推荐推荐",
        "nose is all blocked up again and it's only the start of autumn, ugh",
        "what will I do this summer",
        "a book about the fall of Rome",
    ],
)
def test_the_present_and_plans_are_not_the_past(message):
    assert past_reference(message, NOW) is None


@pytest.mark.parametrize(
    "message, named",
    [
        ("What did I prefer before React?", "React"),
        ("what was I using prior to React?", "React"),
        ("where did I live before moving to Shanghai", "moving to Shanghai"),
        ("remind me which editor I preferred before VS Code", "VS Code"),
        ("Before React, what was my go-to?", "React"),
        ("我用React之前喜欢什么？", "我用React"),
        ("换到React以前我用的是什么", "换到React"),
        ("在上海之前我住哪儿？", "在上海"),
    ],
)
def test_it_reads_what_a_question_asks_the_time_before(message, named):
    assert named_before(message) == named


@pytest.mark.parametrize(
    "message",
    [
        "我以前喜欢什么？",
        "以前我住哪",
        "What did I drink before that?",  # the vague past: nothing named
        "what should I pack before my trip?",
        "Remind me before the meeting",  # now, not the past
        "what do I need before I hit submit?",
        "我打算在搬家之前把书卖掉",  # a plan
    ],
)
def test_it_finds_nothing_named_where_before_names_no_earlier_time(message):
    assert named_before(message) is None


@pytest.mark.parametrize("message", ["0" * 20_000, "我" * 19_990 + " x 之前", "a" * 20_000 + " did"])
def test_a_message_of_the_longest_length_is_read_at_once(message):
    """The API fuzz sent 20,000 characters without punctuation: the chat turn hung for half a minute."""
    import time

    started = time.monotonic()
    named_before(message)
    past_reference(message, NOW)
    assert time.monotonic() - started < 1.0
