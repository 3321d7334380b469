"""bench/chat_cases/cues.json: cues for every dev and holdout memory, each a cue the write path accepts."""

from __future__ import annotations

from bench.chat import cues_by_content, distractors_for, load_cues
from bench.chat_data import CASES_DIR, load_personas
from memoryapp.engine.memories.validation import MemoryInput


def test_the_cue_file_cues_every_measured_memory_as_the_write_path_takes_them():
    cues = load_cues(CASES_DIR / "cues.json")
    for persona in load_personas(("dev", "holdout")):
        assert set(cues[persona.name]) == {m.key for m in persona.memories}, persona.name
        for memory in persona.memories:
            given = cues[persona.name][memory.key]
            assert 3 <= len(given) and MemoryInput(content=memory.content, cues=given).cues == given


def test_a_distractor_that_is_another_personas_memory_finds_that_memorys_cues_by_its_text():
    cues = load_cues(CASES_DIR / "cues.json")
    by_content = cues_by_content(cues)
    grace = load_personas(("holdout",))[0]
    rows = distractors_for(grace, 500)
    cued = [content for content, _ in rows if content in by_content]
    # The other dev and holdout personas' memories (the cue file's), not train's or synthetic ones.
    assert 100 < len(cued) < len(rows)
    assert not {m.content for m in grace.memories} & set(cued)
    ada = load_personas(("dev",))[0]
    assert by_content[ada.memories[0].content] == cues[ada.name][ada.memories[0].key]
