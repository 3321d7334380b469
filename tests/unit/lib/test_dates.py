"""When a relative time was, seen from the day it was said (memoryapp/lib/dates.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryapp.lib.dates import began

SAID = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "words", "day"),
    [
        ("I actually moved to Suzhou last month", "last month", "2026-10-28"),
        ("I started running two years ago", "two years ago", "2024-11-28"),
        ("我上个月搬到了苏州", "上个月", "2026-10-28"),
        ("我两年前开始学钢琴", "2年前", "2024-11-28"),  # Chinese numerals read as digits
        ("我三个月前换了工作", "3个月前", "2026-08-28"),
    ],
)
def test_a_relative_past_time_is_a_day(text, words, day):
    found = began(text, SAID)
    assert found is not None and found[0] == words and found[1].date().isoformat() == day


@pytest.mark.parametrize(
    "text",
    [
        "I'm moving to Valencia next month",  # a plan: it starts nothing yet
        "My last job was at IBM",
        "I may go to Paris in May",
        "我在上海上班",
        "之前我住在北京",
    ],
)
def test_no_relative_past_time_no_day(text):
    assert began(text, SAID) is None
