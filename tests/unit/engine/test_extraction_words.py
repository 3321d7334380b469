"""A memory learnt with no model is what the user wrote: times, abbreviations, lists and the sentence a
pronoun leans on kept whole, punctuation never converted (extract_candidates(messages, llm=None))."""

from __future__ import annotations

import pytest

from memoryapp.engine.llm.candidates import extract_candidates

NO_MODEL = None


def learnt(*turns: str) -> list[str]:
    messages = [{"role": "user", "content": t} for t in turns]
    return [c.content for c in extract_candidates(messages, NO_MODEL).candidates]


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("I take my kids to swim class at 5:15 on Saturdays.", "I take my kids to swim class at 5:15 on Saturdays"),
        ("I drink my first coffee at 7:45, never later.", "I drink my first coffee at 7:45, never later"),
        ("我每周五下午3:30开周会。", "我每周五下午3:30开周会"),
    ],
)
def test_it_keeps_a_time_whole(said, memory):
    assert learnt(said) == [memory]


def test_it_keeps_an_abbreviations_full_stop():
    assert learnt("I moved to the U.K. in May.") == ["I moved to the U.K. in May"]


def test_it_never_rewrites_a_full_stop_in_a_name():
    assert learnt("我在 J.P. Morgan 上班。") == ["我在 J.P. Morgan 上班"]


def test_it_keeps_what_follows_etc_in_the_same_memory():
    said = "My favourite authors are Le Guin, Pratchett, etc. and I read every night."
    assert learnt(said) == [said.rstrip(".")]


def test_it_keeps_a_clause_that_leans_on_the_one_before():
    said = "I'm moving to Valencia next month; my lease in Leeds ends then."
    assert learnt(said) == [said.rstrip(".")]


def test_a_pronoun_stays_with_the_sentence_it_points_to():
    assert learnt("My sister lives in Porto. She works as a nurse there.") == [
        "My sister lives in Porto. She works as a nurse there"
    ]


def test_a_list_after_a_colon_is_kept_with_its_head():
    assert learnt("My go-to snacks: almonds, dates and dark chocolate.") == [
        "My go-to snacks: almonds, dates and dark chocolate"
    ]


def test_two_statements_joined_by_a_semicolon_are_two_memories():
    assert learnt("我住在上海；我打算明年学日语。") == ["我住在上海", "我打算明年学日语"]


def test_a_sentence_joined_across_two_messages_is_glued_with_a_space_not_a_new_stop():
    memories = learnt("我家有两只猫，一只叫年糕，一只叫汤圆", "都是橘猫，特别能吃")
    assert all("。" not in m for m in memories)
