"""Synthetic memories and queries for the scale benchmark: varied English sentences from templates.

Embedding 100k sentences on a shared CPU would take most of an hour, so a pool of base sentences is
embedded once and each memory reuses its base sentence's vector with a small random perturbation
(renormalised). Texts stay distinct (a detail clause is appended), so exact-duplicate skipping never
fires and the full-text and trigram indexes see realistic variety. Pure apart from numpy.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

PEOPLE = [
    "Alice",
    "Bob",
    "my sister",
    "my brother",
    "my manager",
    "Chen Wei",
    "Priya",
    "Lucas",
    "my mom",
    "my dad",
    "Sofia",
    "the team lead",
    "my dentist",
    "Omar",
    "Yuki",
    "my landlord",
    "Grandpa",
    "Emma",
]
ACTIONS = [
    "prefers",
    "dislikes",
    "is learning",
    "recommended",
    "bought",
    "is allergic to",
    "wants to try",
    "keeps forgetting",
    "talked about",
    "is saving for",
    "gave me",
    "asked me about",
    "writes about",
    "teaches",
    "collects",
    "is worried about",
    "cancelled",
    "booked",
]
THINGS = [
    "functional programming",
    "green tea",
    "a road bike",
    "Rust",
    "jazz records",
    "peanuts",
    "sushi",
    "the marathon in April",
    "a trip to Kyoto",
    "sourdough baking",
    "the quarterly report",
    "Postgres tuning",
    "a new laptop",
    "rock climbing",
    "watercolor painting",
    "the piano",
    "a standing desk",
    "chess openings",
    "the dentist appointment",
    "a vegetarian diet",
    "board games",
    "Mandarin lessons",
    "hiking boots",
    "the pull request review",
    "an electric car",
    "a puppy",
    "noise-cancelling headphones",
    "yoga",
    "the wedding in June",
    "mechanical keyboards",
    "a podcast about history",
    "the gym membership",
]
WHEN = [
    "every morning",
    "on weekends",
    "since last year",
    "before the holidays",
    "after work",
    "this month",
    "twice a week",
    "during the summer",
    "at night",
    "when travelling",
    "lately",
    "for years",
]
DETAILS = [
    "at the cafe on Main Street",
    "with friends",
    "on the balcony",
    "near the office",
    "in Berlin",
    "in Shanghai",
    "at home",
    "online",
    "with the kids",
    "at the library",
    "by the lake",
    "downtown",
]
QUESTION_FORMS = [
    "What does {p} think about {t}?",
    "Who {a} {t}?",
    "When did {p} mention {t}?",
    "Does {p} like {t}?",
    "{t}",
    "What did I say about {t} {w}?",
    "Tell me about {p} and {t}",
]


def base_sentences(count: int, seed: int = 7) -> list[str]:
    """`count` distinct base sentences (the embedding pool)."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        found.setdefault(f"{rng.choice(PEOPLE)} {rng.choice(ACTIONS)} {rng.choice(THINGS)} {rng.choice(WHEN)}.", None)
    return list(found)


def memories(count: int, pool: list[str], start: int = 0, seed: int = 11) -> list[tuple[str, int]]:
    """(text, pool index) for memories start..start+count; the numbered note keeps every text distinct."""
    rng = random.Random(seed + start)
    rows = []
    for n in range(start, start + count):
        index = rng.randrange(len(pool))
        rows.append((f"{pool[index][:-1]} {rng.choice(DETAILS)} (note {n}).", index))
    return rows


def queries(count: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(QUESTION_FORMS).format(
            p=rng.choice(PEOPLE), a=rng.choice(ACTIONS), t=rng.choice(THINGS), w=rng.choice(WHEN)
        )
        for _ in range(count)
    ]


def search_box_queries(count: int, seed: int = 19) -> list[str]:
    """What people type into the memories page's search box: a word or two, sometimes misspelt."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = rng.choice(THINGS).split()
        text = " ".join(words[-2:])
        if rng.random() < 0.3 and len(text) > 4:  # a dropped letter: what trigram matching is for
            cut = rng.randrange(1, len(text) - 1)
            text = text[:cut] + text[cut + 1 :]
        out.append(text)
    return out


def perturbed(pool_vectors: np.ndarray, indexes: list[int], scale: float = 0.02, seed: int = 17) -> np.ndarray:
    """Each row: its base vector plus Gaussian noise (sigma `scale` per dimension), unit length again."""
    rng = np.random.default_rng(seed + len(indexes) + (indexes[0] if indexes else 0))
    rows = pool_vectors[indexes] + rng.normal(0, scale, size=(len(indexes), pool_vectors.shape[1])).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def embedded_inputs(pool_size: int, n_queries: int, cache: Path) -> tuple:
    """The pool's sentences, the recall questions and the search-box queries, each with its vectors
    (float32, embedded once and cached under `cache`): what bench.scale and its --tenants run share."""
    from .ingest import embed_cached

    def embedded(texts: list[str]) -> np.ndarray:
        return np.asarray(embed_cached(texts, cache)[0], dtype=np.float32)

    pool, asked, short = base_sentences(pool_size), queries(n_queries), search_box_queries(n_queries)
    return pool, embedded(pool), asked, embedded(asked), short, embedded(short)
