"""bench.entities' scoring: a name counts after normalisation, each gold entity once, typed apart."""

from __future__ import annotations

from bench.entities import score
from bench.entity_data import Case


def case(text: str, *entities: tuple[str, str]) -> Case:
    return Case("t", "dev", "en", text, tuple(entities))


def test_it_counts_a_name_that_matches_after_normalisation_and_a_wrong_type_only_untyped():
    cases = [case("Dr. Chen moved to Lisbon", ("Dr. Chen", "person"), ("Lisbon", "place"))]

    result = score(cases, [[("Chen", "person"), ("Lisbon", "organization"), ("Monday", "person")]])

    assert (result["precision"], result["recall"]) == (round(2 / 3, 4), 1.0)
    assert (result["typed_precision"], result["typed_recall"]) == (round(1 / 3, 4), 0.5)


def test_it_matches_each_gold_entity_once():
    result = score([case("Anna and Anna", ("Anna", "person"))], [[("Anna", "person"), ("anna", "person")]])

    assert (result["precision"], result["recall"]) == (0.5, 1.0)
