"""The shipped change model gives the decisions recorded when it was trained (bench/train/changes.py),
on the default embedder's vectors: retraining or a changed feature shows here."""
from __future__ import annotations

import numpy as np

from memoryapp.engine.learned import change_features
from memoryapp.engine.learned.changes import NAME
from memoryapp.engine.learned.model import load
from memoryapp.providers.embeddings import get_embedder


def test_the_shipped_weights_give_the_decisions_recorded_at_training():
    model = load(NAME)
    recorded = model.meta["recorded"]
    assert len(recorded) >= 10 and {r["class"] for r in recorded} >= {"replaces", "other"}
    for r in recorded:
        v_new, v_old = np.asarray(get_embedder().embed([r["new"], r["old"]]))
        features = change_features.row(r["new"], r["new_kind"], r["old"], r["old_kind"], v_new, v_old)
        p = model.probabilities(features)[0]
        assert model.classes[int(p.argmax())] == r["class"], r["new"]
        assert np.allclose(p, r["p"], atol=2e-3), r["new"]


def test_a_resemblance_and_a_change_said_in_words_the_model_reads_apart():
    model = load(NAME)
    old = "My dog is Max"
    def replaces(new: str) -> float:
        v_new, v_old = np.asarray(get_embedder().embed([new, old]))
        return model.probabilities(change_features.row(new, "fact", old, "fact", v_new, v_old))[0][model.classes.index("replaces")]
    assert replaces("Max passed away, our dog now is a beagle called Juno") > model.meta["replace_threshold"]
    assert replaces("my sister's dog is Bella") < model.meta["replace_threshold"]


def test_a_plain_change_the_rules_see_replaces_but_someone_elses_news_does_not():
    """The rules' change, where the model did not see one and gives it at least the weights' rules_floor;
    another person's news and an addition never replace by the rules."""
    from memoryapp.engine.learned.changes import REPLACES, Existing, choose
    from memoryapp.engine.llm.defaults import rules_see_a_change

    model = load(NAME)
    assert model.meta["rules_floor"] is not None

    def verdict(new: str, old: str) -> str:
        v_new, v_old = np.asarray(get_embedder().embed([new, old]))
        return choose(model, new, "fact", v_new, [Existing(old, "fact", v_old)], rules=rules_see_a_change).label

    assert verdict("我们搬到青岛了", "我住在济南") == REPLACES
    assert verdict("I'm at Stripe now, left Shopify in May", "I work at Shopify") == REPLACES
    assert verdict("我姐姐现在也住在济南了", "我住在济南") != REPLACES
    assert verdict("Alex moved his desk next to the window", "My partner is Alex") != REPLACES
