"""The values a sentence carries (memoryapp/lib/values.py), which a memory keeps and a duplicate must share."""

from __future__ import annotations

import pytest

from memoryapp.lib.values import differs_only_in_values, dropped_values, same_values, values_in


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My flight to Munich is LH2231 on Friday.", ["Munich", "LH2231", "Friday"]),
        ("我的车牌号是浙A 8K261", ["A", "8K261"]),
        ("The lesson is at 5:15, see https://example.org/a.b.", ["5:15", "https://example.org/a.b"]),
        ("I moved to the U.K. in May.", ["U.K.", "May"]),
        ("我在 J.P. Morgan 上班，年薪3.8万", ["J.P.", "Morgan", "3.8"]),
        ("I see Dr. Okafor at 9", ["Dr", "Okafor", "9"]),
    ],
)
def test_it_finds_numbers_codes_urls_and_names(text, expected):
    assert values_in(text) == expected


@pytest.mark.parametrize(
    ("source", "said", "dropped"),
    [
        ("The swim lesson is at 5:15 on Saturdays", "Swim lesson at 5 on Saturdays", ["5:15"]),  # cut
        ("我们每周五下午3:30开周会。", "每周五下午开周会", ["3:30"]),  # left out between its words
        ("My flight is LH2231 on Friday", "My flight is LH2235 on Friday", ["LH2231"]),  # changed
        ("The swim lesson is at 5:15 on Saturdays", "Their swim lesson: 5:15 on Saturdays", []),
        ("My password is hunter2 and I like jazz", "I like jazz", []),  # a memory of another part of it
    ],
)
def test_a_rewording_that_cuts_or_changes_a_value_drops_it(source, said, dropped):
    assert dropped_values(source, said) == dropped


@pytest.mark.parametrize(
    ("a", "b", "same", "new_value"),
    [
        ("My flight to Munich is LH2231 on Friday", "My flight to Munich is LH2235 on Friday", False, True),
        ("我的车牌号是浙A 8K261", "我的车牌号是浙A 8K267", False, True),
        ("My manager is Tom", "My manager is Priya", False, True),
        ("I really like tea", "I like tea", True, False),
        ("I have 2 kids", "I have 2 kids and 3 cats", False, False),
    ],
)
def test_two_sentences_differ_in_a_value_or_not(a, b, same, new_value):
    assert same_values(a, b) is same
    assert differs_only_in_values(a, b) is new_value
