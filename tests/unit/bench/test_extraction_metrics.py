from __future__ import annotations

from bench.extraction_data import Expected
from bench.extraction_metrics import Produced, WindowOutcome, summarise


def window(expected, produced, language="zh"):
    return WindowOutcome("w", "dev", language, "update", tuple(expected), tuple(produced))


def test_a_lesson_that_lost_what_it_refers_to_keeps_half_its_details():
    lesson = Expected("lesson", ("Docker", "proxy-env"))
    summary = summarise(
        [window([lesson], [Produced("I learned I have to run them through proxy-env", "lesson")], "en")]
    )
    assert summary["recall"] == 1.0 and summary["precision"] == 1.0
    assert summary["detail_retention"] == 0.5 and summary["kind_accuracy"] == 1.0


def test_an_update_counts_only_when_it_superseded_the_right_memory():
    react = Expected("preference", ("React",), supersedes="vue")
    right = summarise([window([react], [Produced("我现在更喜欢用 React 了", "preference", ("vue",))])])
    wrong = summarise([window([react], [Produced("我现在更喜欢用 React 了", "preference")])])
    assert right["update_detection"] == 1.0 and wrong["update_detection"] == 0.0


def test_a_memory_from_a_question_counts_against_precision_and_nothing_expected_is_no_recall():
    summary = summarise([window([], [Produced("What is a good Python book", "fact")], "en")])
    assert summary["precision"] == 0.0 and summary["recall"] is None


def test_one_memory_serves_one_expected_memory():
    tea, coffee = Expected("preference", ("龙井",)), Expected("preference", ("咖啡",))
    summary = summarise([window([tea, coffee], [Produced("我不喝咖啡，只喝龙井绿茶", "preference")])])
    assert summary["recall"] == 0.5 and summary["precision"] == 1.0


def test_a_resemblance_that_replaced_the_users_memory_counts_as_a_wrong_replacement():
    bella = Expected("fact", ("Bella",))  # "my sister's dog is Bella" beside "my dog is Max": no supersedes
    lost = summarise([window([bella], [Produced("my sister's dog is Bella", "fact", ("dog",))], "en")])
    kept = summarise([window([bella], [Produced("my sister's dog is Bella", "fact")], "en")])
    assert lost["wrong_replacements"] == 1.0 and kept["wrong_replacements"] == 0.0


def test_the_right_replacement_is_not_a_wrong_one():
    react = Expected("preference", ("React",), supersedes="vue")
    summary = summarise([window([react], [Produced("我现在更喜欢用 React 了", "preference", ("vue",))])])
    assert summary["wrong_replacements"] == 0.0
