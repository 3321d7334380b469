from __future__ import annotations

from bench.chat_metrics import TurnOutcome, grouped, summarise


def turn(case: str, language: str, needs: set[str], injected: tuple[str, ...], relevant: set[str] | None = None):
    return TurnOutcome(case, language, "direct", "dev", frozenset(needs), frozenset(relevant or needs), injected, 5.0)


def test_a_greeting_handed_a_memory_counts_against_precision_and_the_none_rate():
    outcomes = [
        turn("a", "en", {"docker"}, ("docker", "tea")),
        turn("b", "en", set(), ("name",)),
        turn("c", "zh", set(), ()),
    ]
    summary = summarise(outcomes)
    assert summary["need_hit_at_3"] == 1.0
    assert summary["precision"] == round(1 / 3, 4)  # docker of docker, tea, name
    assert summary["no_memory_injection_rate"] == 0.5


def test_half_of_two_needed_memories_is_half_a_hit_and_languages_are_apart():
    outcomes = [turn("a", "zh", {"rent", "dog"}, ("rent",)), turn("b", "en", {"tea"}, ())]
    by_language = grouped(outcomes, "language")
    assert by_language["zh"]["need_hit_at_3"] == 0.5 and by_language["en"]["need_hit_at_3"] == 0.0
    assert by_language["en"]["precision"] is None  # nothing injected: no precision to speak of
