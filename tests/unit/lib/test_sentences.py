"""The one sentence and clause splitter (memoryapp/lib/sentences.py): nothing a user wrote is cut or rewritten."""

from __future__ import annotations

import pytest

from memoryapp.lib.sentences import clauses, sentence_spans, sentences, trimmed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My shift ends at 22:00 most days. I sleep till noon.",
            ["My shift ends at 22:00 most days.", "I sleep till noon."],
        ),
        ("I moved to the U.K. in May. It rains a lot.", ["I moved to the U.K. in May.", "It rains a lot."]),
        ("I got my Ph.D. in 2019 and my M.Sc. before that.", ["I got my Ph.D. in 2019 and my M.Sc. before that."]),
        ("I see Dr. Okafor every spring.", ["I see Dr. Okafor every spring."]),
        (
            "I use Python 3.12, see https://example.org/notes?id=3 for more.",
            ["I use Python 3.12, see https://example.org/notes?id=3 for more."],
        ),
        (
            "我在 J.P. Morgan 上班。我们每周五下午3:30开周会。",
            ["我在 J.P. Morgan 上班。", "我们每周五下午3:30开周会。"],
        ),
        ("我去年爬了Mt. Kilimanjaro，花了6天。", ["我去年爬了Mt. Kilimanjaro，花了6天。"]),
        ("我学到的教训：‘备份不做，早晚要哭。’去年硬盘坏了。", ["我学到的教训：‘备份不做，早晚要哭。’去年硬盘坏了。"]),
        ("我住在上海；我打算明年学日语。", ["我住在上海；", "我打算明年学日语。"]),
        ("Mia does the dishes; Leo feeds the cat.", ["Mia does the dishes; Leo feeds the cat."]),
        ("i like tea\nalso i hate coffee", ["i like tea", "also i hate coffee"]),
    ],
)
def test_it_ends_sentences_where_they_end(text, expected):
    assert sentences(text) == expected


def test_every_sentence_is_a_span_of_the_text_as_written():
    text = "  I moved to the U.K. in May.  我在 J.P. Morgan 上班。\nMy rent is £1,250 a month; we split it. "
    for span in sentence_spans(text):
        assert text[span.start : span.end] == span.text


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The kids' swim lesson is at 5:15 on Saturdays, so no plans then.",
            ["The kids' swim lesson is at 5:15 on Saturdays,", "so no plans then."],
        ),
        ("We paid €12,500 for it, about 3:1 over budget.", ["We paid €12,500 for it,", "about 3:1 over budget."]),
        (
            "My manager (Hannah, since last autumn) wants updates.",
            ["My manager (Hannah, since last autumn) wants updates."],
        ),
        ("我周末一般是：周六打球，周日大扫除。", ["我周末一般是：", "周六打球，", "周日大扫除。"]),
    ],
)
def test_clauses_end_after_a_mark_followed_by_a_space_outside_brackets(sentence, expected):
    assert clauses(sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I like tea.", "I like tea"),
        ("I moved to the U.K.", "I moved to the U.K."),
        ("My favourite authors are Le Guin, Pratchett, etc.", "My favourite authors are Le Guin, Pratchett, etc."),
        ("I moved here in May.", "I moved here in May"),
        ("我住在上海。", "我住在上海"),
        ("I  live\nin Leeds;", "I live in Leeds"),
        ("By the way, I moved to Leeds.", "I moved to Leeds"),  # leading filler goes
        ("顺便说一下，我对花生过敏。", "我对花生过敏"),
    ],
)
def test_a_trimmed_sentence_loses_only_its_filler_and_final_stop(sentence, expected):
    assert trimmed(sentence) == expected


def test_no_character_is_ever_left_out_even_of_a_repeated_sentence():
    text = "I like tea. I like tea. 我喜欢茶。我喜欢茶。!!） etc.。。"
    assert sentences("I like tea. I like tea. 我喜欢茶。") == ["I like tea.", "I like tea.", "我喜欢茶。"]
    assert "".join(sentences(text)).replace(" ", "") == text.replace(" ", "")
