"""A shipped model runs with numpy alone, reads back exactly as written, and steps aside on another embedder."""

from __future__ import annotations

import numpy as np
from django.core.checks import run_checks
from django.test import override_settings

from memoryapp.engine.learned import model as learned
from memoryapp.engine.learned.model import TrainedModel


def _tiny(name: str, embedder: str, classes=("no", "yes"), outputs: int = 1) -> TrainedModel:
    rng = np.random.default_rng(3)
    layers = ((rng.normal(size=(4, 3)), rng.normal(size=3)), (rng.normal(size=(3, outputs)), rng.normal(size=outputs)))
    return TrainedModel(
        name,
        layers,
        mean=np.zeros(4),
        scale=np.ones(4),
        meta={"embedder": embedder, "classes": list(classes), "threshold": 0.4},
    )


def test_it_reads_back_the_decisions_it_was_saved_with(tmp_path):
    saved = _tiny("tiny", "use-multilingual-v3")
    rows = np.random.default_rng(5).normal(size=(6, 4))
    back = learned.read(saved.save(tmp_path / "tiny.npz"))
    assert np.allclose(back.yes(rows), saved.yes(rows), atol=1e-5)  # float32 on disk
    assert back.threshold == 0.4 and back.embedder == "use-multilingual-v3"


def test_a_model_of_several_classes_gives_a_distribution(tmp_path):
    kinds = _tiny("kinds", "x", classes=("fact", "goal", "lesson"), outputs=3)
    probabilities = kinds.probabilities(np.ones((2, 4)))
    assert probabilities.shape == (2, 3) and np.allclose(probabilities.sum(axis=1), 1)


def test_a_model_trained_on_another_embedder_is_not_used_and_the_operator_is_told(tmp_path, settings):
    settings.LEARNED_WEIGHTS_DIR = tmp_path
    _tiny("relevance", "use-multilingual-v3").save(tmp_path / "relevance.npz")
    try:
        settings.EMBEDDING_MODEL = "use-multilingual-v3"
        assert learned.usable("relevance") is not None
        assert not [w for w in run_checks() if w.id == "memoryapp.W020"]
        settings.EMBEDDING_MODEL = "text-embedding-3-small"
        assert learned.usable("relevance") is None
        (warning,) = [w for w in run_checks() if w.id == "memoryapp.W020"]
        assert "relevance" in warning.msg and "manage.py train" in warning.hint
    finally:
        learned.load.cache_clear()


def test_the_rules_can_be_asked_for_by_name(tmp_path, settings):
    settings.LEARNED_WEIGHTS_DIR = tmp_path
    _tiny("relevance", settings.EMBEDDING_MODEL).save(tmp_path / "relevance.npz")
    try:
        with learned.rules_only():
            assert learned.usable("relevance") is None
        assert learned.usable("relevance") is not None
    finally:
        learned.load.cache_clear()


def test_it_reads_and_writes_the_folder_the_settings_name_and_the_shipped_one_after(tmp_path):
    shipped = learned.load("relevance")
    assert shipped is not None and learned.weights_dir() == learned.WEIGHTS_DIR
    with override_settings(LEARNED_WEIGHTS_DIR=tmp_path):
        assert learned.load("relevance") is None  # retrained elsewhere: nothing there yet
        _tiny("relevance", "multilingual-e5-small").save()
        assert (tmp_path / "relevance.npz").exists()
        assert learned.load("relevance").embedder == "multilingual-e5-small"
    assert learned.load("relevance").embedder == shipped.embedder
