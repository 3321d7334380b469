"""The shipped relevance weights (weights/relevance.npz) give the decisions recorded when they were trained,
and its meta says what they were trained on."""

from __future__ import annotations

import numpy as np
from django.conf import settings

from memoryapp.engine.learned.model import load
from memoryapp.engine.learned.relevance import FEATURES, MODEL_NAME, Candidate, MessageShape, pair_features


def test_the_shipped_weights_reproduce_the_recorded_decisions():
    model = load(MODEL_NAME)
    check = model.meta["check"]
    scores = model.yes(np.asarray(check["features"]))
    assert np.allclose(scores, check["yes"], atol=1e-5)
    assert list(scores >= model.threshold) == [p >= model.threshold for p in check["yes"]]


def test_the_meta_names_the_embedder_features_and_data():
    meta = load(MODEL_NAME).meta
    assert meta["embedder"] == settings.EMBEDDING_MODEL
    assert meta["features"] == list(FEATURES)
    assert set(meta["data_sha256"]) == {"train", "dev", "holdout"}
    assert 0 < meta["threshold"] < 1 and 0 < meta["message_threshold"] < 1


def test_a_lone_exact_memory_ranks_first_among_its_candidates():
    # A store of one memory: its features must not read it as an average candidate.
    shape = MessageShape.of("which language for scripting? I prefer Python", False, 0.9, np.ones(4))
    row = pair_features(shape, [Candidate("I prefer Python for scripting", "preference", 0.76)])[0]
    named = dict(zip(FEATURES, row))
    assert named["cosine_below_best"] == 0 and named["cosine_rank"] == 0 and named["shared_words"] >= 2


def test_the_meta_carries_the_relative_cut():
    assert 0 <= load(MODEL_NAME).meta["relative"] < 1
