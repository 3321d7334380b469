"""Which of the user's known entities a newly extracted name is: the same normalised name first
("Dr. Chen" is "chen"); another name of the same thing (aliases.py: "Postgres", ByteDance / 字节跳动); the
same name with or without an organisation's generic last word ("Oak Park Elementary School"); a single
word that names exactly one known name ("Anna" and "Anna Schmidt"); then, only if the caller passes an
embedder, the nearest known name by cosine. No model call; the embedder arrives as an argument (any
`embed(texts) -> vectors`), so this module needs none.

On the written name pairs (bench.entities, `resolution`) the default embedder's cosine between bare names
added wrong merges at every threshold from 0.8 to 0.95 (李娜 / 李明 0.75, 王伟 / 王伟伟 0.94) for at most
four right ones: the rules above are the resolver, the cosine an option a caller must ask for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .aliases import alias_keys
from .names import normalise_name

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
# Names are short: two different ones often sit at 0.8 ("Anna" / "Hanna"); the same thing said two ways
# sits above 0.9 with the default embedder ("Postgres" / "PostgreSQL").
SIMILARITY_THRESHOLD = 0.95
# An organisation's generic last word: "Oak Park Elementary School" is "Oak Park Elementary".
GENERIC_LAST_WORDS = ("school", "university", "college", "inc", "ltd", "llc", "corp", "company", "hospital", "group")


@dataclass(frozen=True)
class Resolution:
    name: str
    match: str | None  # the known name it is, or None: a new entity
    how: str  # "name", "word", "embedding" or "new"
    similarity: float | None = None


def resolve(
    names: Sequence[str], existing: Sequence[str], embed: Embed | None = None, threshold: float = SIMILARITY_THRESHOLD
) -> list[Resolution]:
    """One Resolution per name, in order. `existing`: the names already in the user's graph, of the same
    type when the caller knows it (resolution compares names, not types)."""
    by_key: dict[str, str] = {}
    for known in existing:
        by_key.setdefault(normalise_name(known), known)
    out: list[Resolution | None] = []
    for name in names:
        key = normalise_name(name)
        if key in by_key:
            out.append(Resolution(name, by_key[key], "name", 1.0))
            continue
        out.append(_by_rules(name, key, by_key))
    pending = [i for i, r in enumerate(out) if r is None]
    if pending and embed is not None and by_key:
        known_keys = list(by_key)
        vectors = _unit(embed([normalise_name(names[i]) for i in pending] + known_keys))
        asked, known_vectors = vectors[: len(pending)], vectors[len(pending) :]
        similarities = asked @ known_vectors.T
        for row, i in enumerate(pending):
            best = int(np.argmax(similarities[row]))
            score = float(similarities[row, best])
            if score >= threshold:
                out[i] = Resolution(names[i], by_key[known_keys[best]], "embedding", round(score, 4))
    return [r or Resolution(names[i], None, "new") for i, r in enumerate(out)]


def _by_rules(name: str, key: str, by_key: dict[str, str]) -> Resolution | None:
    aliases = [k for k in alias_keys().get(key, ()) if k in by_key]
    if len(aliases) == 1:
        return Resolution(name, by_key[aliases[0]], "alias")
    bare = _without_generic_word(key)  # one of the two has the generic word, the other not
    same = [k for k in by_key if k != key and (k == bare or _without_generic_word(k) == key)]
    if len(same) == 1:
        return Resolution(name, by_key[same[0]], "suffix")
    holders = [k for k in by_key if key and key.isascii() and " " not in key and key in k.split()]
    if len(holders) == 1:
        return Resolution(name, by_key[holders[0]], "word")
    return None


def _without_generic_word(key: str) -> str:
    head, _, last = key.rpartition(" ")
    return head if head and last in GENERIC_LAST_WORDS else key


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1.0, norms)
