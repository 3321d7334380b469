"""Which of the user's known entities a newly extracted name is: the same normalised name first
("Dr. Chen" is "chen"), then a single word that names exactly one known name ("Anna" and "Anna Schmidt"),
then, given an embedder, the nearest known name by cosine ("Postgres" / "PostgreSQL"). No model call.
The embedder arrives as an argument (any `embed(texts) -> vectors`), so this module needs none."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .names import normalise_name

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
# Names are short: two different ones often sit at 0.8 ("Anna" / "Hanna"); the same thing said two ways
# sits above 0.9 with the default embedder ("Postgres" / "PostgreSQL").
SIMILARITY_THRESHOLD = 0.9


@dataclass(frozen=True)
class Resolution:
    name: str
    match: str | None  # the known name it is, or None: a new entity
    how: str  # "name", "word", "embedding" or "new"
    similarity: float | None = None


def resolve(names: Sequence[str], existing: Sequence[str], embed: Embed | None = None,
            threshold: float = SIMILARITY_THRESHOLD) -> list[Resolution]:
    """One Resolution per name, in order. `existing`: the names already in the user's graph (of the same
    type, when the caller knows it: resolution compares names, not types)."""
    by_key: dict[str, str] = {}
    for known in existing:
        by_key.setdefault(normalise_name(known), known)
    out: list[Resolution | None] = []
    for name in names:
        key = normalise_name(name)
        if key in by_key:
            out.append(Resolution(name, by_key[key], "name", 1.0))
            continue
        holders = [k for k in by_key if key and key.isascii() and " " not in key and key in k.split()]
        out.append(Resolution(name, by_key[holders[0]], "word") if len(holders) == 1 else None)
    pending = [i for i, r in enumerate(out) if r is None]
    if pending and embed is not None and by_key:
        known_keys = list(by_key)
        vectors = _unit(embed([normalise_name(names[i]) for i in pending] + known_keys))
        asked, known_vectors = vectors[:len(pending)], vectors[len(pending):]
        similarities = asked @ known_vectors.T
        for row, i in enumerate(pending):
            best = int(np.argmax(similarities[row]))
            score = float(similarities[row, best])
            if score >= threshold:
                out[i] = Resolution(names[i], by_key[known_keys[best]], "embedding", round(score, 4))
    return [r or Resolution(names[i], None, "new") for i, r in enumerate(out)]


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1.0, norms)
