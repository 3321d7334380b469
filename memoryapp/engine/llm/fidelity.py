"""A model's memory keeps the user's values: when its wording cuts or changes a number, time, date,
amount, code, URL or name of the sentence it was taken from (lib/values.py `dropped_values`), the user's
own sentence is stored instead.

Which sentence: the user's sentence sharing the most words with the memory (at least half of the
memory's words), so a memory the model composed from nothing the user said is left as the model wrote it.
"""

from __future__ import annotations

from memoryapp.lib.sentences import sentences, trimmed
from memoryapp.lib.values import dropped_values

from ..text import segment
from .schemas import Candidate


def _source(content: str, said: list[str]) -> str | None:
    words = set(segment(content))
    if not words:
        return None
    shared, best = max(((len(words & set(segment(s))), s) for s in said), default=(0, None))
    return best if shared and shared * 2 >= len(words) else None


def faithful(candidates: list[Candidate], messages: list[dict]) -> list[Candidate]:
    """`candidates` with each one that lost a value of its source sentence put back in the user's words."""
    said = [s for m in messages if m.get("role") == "user" for s in sentences(str(m.get("content") or ""))]
    out = []
    for candidate in candidates:
        source = _source(candidate.content, said)
        if source is not None and dropped_values(source, candidate.content):
            candidate = candidate.model_copy(update={"content": trimmed(source)})
        out.append(candidate)
    return out
