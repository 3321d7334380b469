"""Which memory a statement may replace (engine/slots.py): only one of the same slot, and only the user's."""

from __future__ import annotations

import pytest

from memoryapp.engine.learned.slots import may_replace, new_value, restated, slots_of


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("我换工作了，现在在苏州做后端开发", "I actually moved to Suzhou last month"),  # a job is not a home
        ("We moved to Lisbon in the summer", "I work at Stripe"),
        ("My sister moved to Porto", "I live in Madrid"),  # someone else's home
        ("我妹妹搬到杭州了", "我住在苏州"),
        ("I got a new phone, a Pixel 9", "I drive a Corolla"),
    ],
)
def test_a_statement_never_replaces_another_slot_or_another_persons(new, old):
    assert may_replace(new, old) is False


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("我换工作了，现在在苏州做后端开发", "我在杭州做前端开发，主要用React"),
        ("We finally moved to Hamburg", "I live in Berlin"),
        ("我现在不吃素了", "I'm vegetarian"),  # across the two languages
        ("My new manager, Priya, wants weekly reports", "My manager is Tom"),
        ("I now write everything in Neovim", "I use VS Code"),  # no slot word: the change model decides
    ],
)
def test_a_statement_may_replace_a_memory_of_its_slot(new, old):
    assert may_replace(new, old) is True


def test_slots_are_read_in_both_languages():
    assert slots_of("我搬到武汉了") == slots_of("I moved to Wuhan") == {"home"}
    assert slots_of("我老板换人了") == slots_of("I have a new boss") == {"manager"}


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("我们搬到重庆了，房子还在收拾", "住在成都"),  # far apart as vectors, one slot
        ("I'm driving a Kia Niro hybrid now", "I drive a Toyota Corolla"),
        ("Marco and I broke up last week", "Boyfriend is called Marco"),
        ("新来的领导姓刘，要求每天发日报", "领导是王姐"),
        ("我现在不吃素了", "I'm vegetarian"),
    ],
)
def test_a_new_value_for_a_single_valued_slot_is_a_change(new, old):
    assert new_value(new, old) is True


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("我姐搬到成都了", "住在北京朝阳"),  # someone else's home
        ("我们部门搬到新园区了", "住在东莞"),  # the department's move
        ("志强跳槽去了中信证券", "在中信银行做柜员"),  # a named person's job
        ("thinking about switching to Android", "I use an iPhone"),  # a plan
        ("Work gave me an iPhone 15, so I carry two phones now", "Uses a Pixel 8"),  # a second one
        ("Since I'm based in Lisbon", "Lives in Lisbon"),  # the same value again
        ("I also got a rabbit", "I have a cat"),  # pets are many
    ],
)
def test_a_look_alike_is_not_a_new_value(new, old):
    assert new_value(new, old) is False


def test_a_restatement_is_not_a_change_but_naming_what_was_left_is():
    assert restated("Seattle person here, working at Amazon", "Works at Amazon") is True
    assert restated("I'm at Stripe now, left Shopify in May", "I work at Shopify") is False
