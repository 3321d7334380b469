"""The markers a model's reply writes to say which memories it used (engine/chat/citations.py)."""

from __future__ import annotations

from memoryapp.engine.chat.citations import MarkerStream, pieces, used, without_invented, without_markers


def test_a_reply_uses_the_memories_it_marked_in_the_order_first_marked():
    assert used("Lentils [3] suit you [1, 3].", offered=3) == [3, 1]


def test_an_invented_number_is_dropped_and_marks_nothing():
    assert used("Try tea [7].", offered=2) == []
    assert without_invented("Try tea [7] and oolong [2, 9].", offered=2) == "Try tea and oolong [2]."


def test_a_reply_that_marks_nothing_used_nothing():
    assert used("Try a lentil curry.", offered=3) == []


def test_brackets_in_code_are_not_markers():
    text = "Use `rows[1]` here:\n```\nx = a[2]\n```\nas you prefer [1]."
    assert used(text, offered=3) == [1]
    assert pieces(text, offered=3)[-2:] == [1, "."]


def test_a_later_prompt_carries_a_reply_without_its_markers():
    assert without_markers("你吃素[1]，可以做扁豆咖喱[2, 3]。") == "你吃素，可以做扁豆咖喱。"


def _streamed(deltas: list[str], offered: int) -> list:
    stream = MarkerStream(offered)
    out = [piece for delta in deltas for piece in stream.feed(delta)] + stream.close()
    merged: list = []
    for piece in out:  # adjacent text pieces as one, to compare with the whole reply's pieces
        if merged and isinstance(piece, str) and isinstance(merged[-1], str):
            merged[-1] += piece
        else:
            merged.append(piece)
    return merged


def test_a_marker_split_across_deltas_comes_out_whole():
    assert _streamed(["Since you're vegetarian", " [", "1", "] try", " [2,", " 9]", " dal."], offered=2) == [
        "Since you're vegetarian ",
        1,
        " try ",
        2,
        " dal.",
    ]


def test_a_stream_ending_inside_an_unfinished_marker_lets_it_through_as_text():
    assert _streamed(["see [", "1"], offered=2) == ["see [1"]


def test_a_bracket_inside_streamed_code_stays_code():
    assert _streamed(["`a[", "1]` and tea [", "1]"], offered=1) == ["`a[1]` and tea ", 1]
