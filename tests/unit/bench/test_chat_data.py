"""bench.chat's case files: every split loads, and dated versions are checked before a run."""

from __future__ import annotations

import pytest

from bench.chat_data import EXTRA_SPLITS, SPLITS, CaseFileError, load_personas, parse_persona


def test_every_split_loads_with_its_labels_naming_stored_memories():
    personas = load_personas(SPLITS + EXTRA_SPLITS)
    assert {p.split for p in personas} == set(SPLITS + EXTRA_SPLITS)
    past = [p for p in personas if p.split == "past"]
    assert all(p.now is not None for p in past)  # dated cases count back from the day they were written
    assert any(m.replaced_by for p in past for m in p.memories)


def _persona(old_from: str, new_from: str) -> dict:
    return {
        "persona": "p",
        "written_on": "2026-11-23",
        "cases": [],
        "memories": [
            {"key": "old", "content": "Lives in Paris", "valid_from": old_from, "replaced_by": "new"},
            {"key": "new", "content": "Lives in Lyon", "valid_from": new_from},
        ],
    }


def test_a_version_must_start_after_the_one_it_replaces():
    persona = parse_persona(_persona("2026-01-10", "2026-06-01"), "past")
    assert persona.memories[0].replaced_by == "new" and persona.now.date().isoformat() == "2026-11-23"
    with pytest.raises(CaseFileError, match="replaced"):
        parse_persona(_persona("2026-06-01", "2026-01-10"), "past")


def test_every_persona_asks_on_behalf_of_someone_else():
    for persona in load_personas(("train", *SPLITS)):
        asked = [c for c in persona.cases if c.shape == "third_person"]
        assert sum(1 for c in asked if not c.needs and not c.relevant) == 6, persona.name
        assert sum(1 for c in asked if c.needs) == 2, persona.name
