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


def test_third_person_counts_only_the_turns_for_someone_else_that_need_nothing():
    def asked(case: str, needs: set[str], injected: tuple[str, ...], shape: str = "third_person"):
        return TurnOutcome(case, "en", shape, "dev", frozenset(needs), frozenset(needs), injected, 5.0)

    outcomes = [
        asked("a", set(), ("running",)),  # "my neighbour wants to start running": handed the user's running
        asked("b", set(), ()),
        asked("c", {"knee"}, ("knee",)),  # "my friend and I are hiking": the user's own part, needs a memory
        asked("d", set(), ("tea",), shape="chitchat"),
    ]
    summary = summarise(outcomes)
    assert summary["third_person_handed_memory"] == 0.5
    assert summary["no_memory_injection_rate"] == round(2 / 3, 4)
    assert summarise([turn("e", "en", set(), ())])["third_person_handed_memory"] is None
