"""bench/chat_cases/cues.json: cues for every dev and holdout memory, each a cue the write path accepts."""
from __future__ import annotations

from bench.chat import load_cues
from bench.chat_data import CASES_DIR, load_personas
from memoryapp.engine.memories.validation import MemoryInput


def test_the_cue_file_cues_every_measured_memory_as_the_write_path_takes_them():
    cues = load_cues(CASES_DIR / "cues.json")
    for persona in load_personas(("dev", "holdout")):
        assert set(cues[persona.name]) == {m.key for m in persona.memories}, persona.name
        for memory in persona.memories:
            given = cues[persona.name][memory.key]
            assert 3 <= len(given) and MemoryInput(content=memory.content, cues=given).cues == given
