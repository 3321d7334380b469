"""A model's reply keeps the chat's working memory in its last line, which no one sees: cut from the stream
even when its tag arrives in pieces, and read only when it is a small JSON object with good keys."""

from __future__ import annotations

from memoryapp.engine.chat_state.trailer import TrailerStream, split


def streamed(deltas: list[str]) -> tuple[str, str]:
    cut = TrailerStream()
    shown = "".join(cut.feed(delta) for delta in deltas) + cut.close()
    return shown, cut.held


def test_the_line_is_cut_and_read():
    text, changes = split('Kyoto in winter is lovely.\n<keep>{"destination": "Kyoto", "people": 2}</keep>')
    assert text == "Kyoto in winter is lovely."
    assert changes == {"destination": "Kyoto", "people": 2}


def test_a_tag_split_across_deltas_never_shows():
    shown, held = streamed(["好的，就定", "这几天。\n<", "ke", 'ep>{"dates": "2025-12-30 – 2026-01-03"}</k', "eep>"])
    assert shown == "好的，就定这几天。\n"
    assert split(shown + held) == ("好的，就定这几天。", {"dates": "2025-12-30 – 2026-01-03"})


def test_text_that_only_looks_like_the_start_of_a_tag_is_shown():
    assert streamed(["a < b and x <k", "ind of thing"]) == ("a < b and x <kind of thing", "")


def test_a_bad_line_changes_nothing_and_is_still_cut():
    assert split("Sure.\n<keep>not json</keep>") == ("Sure.", {})
    assert split('Sure.\n<keep>["a list"]</keep>') == ("Sure.", {})
    assert split('Sure.\n<keep>{"bad/key": 1, "date": "2026-01-02"}</keep>') == ("Sure.", {"date": "2026-01-02"})
    assert split('Sure.\n<keep>{"date": "2026-01-0') == ("Sure.", {})  # cut off: hidden, and nothing half-read


def test_a_reply_without_a_line_is_left_alone():
    assert split("Nothing to keep here [1].") == ("Nothing to keep here [1].", {})
