"""What a message names that the user's memories name as someone close to them (engine/learned/relevance.py):
the cue that lets a third-person question about them past the message gate."""

from __future__ import annotations

import pytest

from memoryapp.engine.learned.relevance import names_in, shares_a_name


@pytest.mark.parametrize(
    "message, memory",
    [
        ("Where does Anna live now?", "My sister Anna moved to Munich."),
        ("How is Tom doing at Siemens?", "Anna's husband Tom works at Siemens."),
        ("When did Caroline go to the LGBTQ support group?", "Caroline: I went to a support group yesterday."),
        ("小雨现在在哪儿上学？", "我妹妹小雨今年考上了四川大学。"),
        ("朵朵能吃花生酱吗？", "小女儿朵朵对花生过敏。"),
        ("Leo 那家公司怎么样？", "下周三下午约了前同事Leo喝咖啡。"),
    ],
)
def test_someone_close_named_in_both(message, memory):
    assert shares_a_name(names_in(message), memory)


@pytest.mark.parametrize(
    "message, memory",
    [
        ("When did Einstein publish relativity?", "My sister Anna moved to Munich."),
        ("who wrote Dune?", "He couldn't get into Dune, the prose felt heavy."),  # a thing, not someone close
        ("芒果和榴莲哪个热量高", "乐乐对芒果过敏。"),
        ("把这句话翻译成英文：这个周末我们一起去爬山吧", "林老师周末喜欢爬山。"),  # 周末 is a time word
        ("Anna said hi.", "My sister Anna moved to Munich."),  # a sentence's first word is not taken as a name
    ],
)
def test_no_one_close_named_in_both(message, memory):
    assert not shares_a_name(names_in(message), memory)
