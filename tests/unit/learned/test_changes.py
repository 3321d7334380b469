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
        return model.probabilities(change_features.row(new, "fact", old, "fact", v_new, v_old))[0][
            model.classes.index("replaces")
        ]

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


def _verdict(new: str, old: str) -> str:
    from memoryapp.engine.learned.changes import Existing, choose
    from memoryapp.engine.llm.defaults import rules_see_a_change

    v_new, v_old = np.asarray(get_embedder().embed([new, old]))
    return choose(load(NAME), new, "fact", v_new, [Existing(old, "fact", v_old)], rules=rules_see_a_change).label


def test_a_chinese_transfer_or_switch_replaces_the_old_memory():
    from memoryapp.engine.learned.changes import REPLACES

    assert _verdict("我从杭州总部调到武汉分部了", "我在杭州总部上班") == REPLACES
    assert _verdict("豆浆不喝了，现在改喝牛奶", "我每天早上喝豆浆") == REPLACES


def test_a_friend_moving_to_my_city_or_news_about_my_car_does_not_replace_it():
    """Said with the words of a change (搬到, 新), but the friend's city and the car's news are not mine."""
    from memoryapp.engine.learned.changes import REPLACES

    assert _verdict("我朋友上个月搬到厦门了", "我住在厦门") != REPLACES
    assert _verdict("马自达出了新款 SUV", "我开一辆马自达") != REPLACES
    assert _verdict("my best friend just moved to Leeds", "I live in Leeds") != REPLACES
