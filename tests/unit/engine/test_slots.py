"""Which memory a statement may replace (engine/slots.py): only one of the same slot, and only the user's."""
from __future__ import annotations

import pytest

from memoryapp.engine.slots import may_replace, slots_of


@pytest.mark.parametrize(("new", "old"), [
    ("我换工作了，现在在苏州做后端开发", "I actually moved to Suzhou last month"),  # a job is not a home
    ("We moved to Lisbon in the summer", "I work at Stripe"),
    ("My sister moved to Porto", "I live in Madrid"),  # someone else's home
    ("我妹妹搬到杭州了", "我住在苏州"),
    ("I got a new phone, a Pixel 9", "I drive a Corolla"),
])
def test_a_statement_never_replaces_another_slot_or_another_persons(new, old):
    assert may_replace(new, old) is False


@pytest.mark.parametrize(("new", "old"), [
    ("我换工作了，现在在苏州做后端开发", "我在杭州做前端开发，主要用React"),
    ("We finally moved to Hamburg", "I live in Berlin"),
    ("我现在不吃素了", "I'm vegetarian"),  # across the two languages
    ("My new manager, Priya, wants weekly reports", "My manager is Tom"),
    ("I now write everything in Neovim", "I use VS Code"),  # no slot word: the change model decides
])
def test_a_statement_may_replace_a_memory_of_its_slot(new, old):
    assert may_replace(new, old) is True


def test_slots_are_read_in_both_languages():
    assert slots_of("我搬到武汉了") == slots_of("I moved to Wuhan") == {"home"}
    assert slots_of("我老板换人了") == slots_of("I have a new boss") == {"manager"}
