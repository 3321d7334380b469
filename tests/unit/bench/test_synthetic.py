"""The scale benchmark's synthetic data: distinct texts, unit vectors near their base sentence."""

from __future__ import annotations

import numpy as np

from bench import synthetic


def test_it_makes_distinct_texts_from_a_small_pool():
    pool = synthetic.base_sentences(50)
    rows = synthetic.memories(500, pool)
    assert len({text for text, _ in rows}) == 500
    assert all(0 <= index < 50 for _, index in rows)


def test_it_perturbs_vectors_slightly_and_keeps_unit_length():
    rng = np.random.default_rng(0)
    pool = rng.normal(size=(5, 384)).astype(np.float32)
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    rows = synthetic.perturbed(pool, [0, 0, 3])
    assert np.allclose(np.linalg.norm(rows, axis=1), 1, atol=1e-5)
    assert (rows @ pool[[0, 0, 3]].T).diagonal().min() > 0.85


def test_it_makes_short_search_box_queries():
    queries = synthetic.search_box_queries(100)
    assert len(queries) == 100
    assert all(1 <= len(q.split()) <= 2 for q in queries)
