"""Leaving the words most memories hold out of the full-text query (FullTextConfig.max_term_share)."""
from __future__ import annotations

import pytest

from memoryapp.engine import retrievers
from memoryapp.engine.config import FullTextConfig


@pytest.fixture
def shares(monkeypatch):
    table = {"coffee": 0.4, "lisbon": 0.001, "walk": 0.06}
    monkeypatch.setattr(retrievers, "term_shares", lambda words: {w: table.get(w, 0.0) for w in words})


def test_words_above_the_share_are_left_out(shares):
    assert retrievers.drop_common_terms("coffee | lisbon | walk", 0.05) == "lisbon"
    assert retrievers.drop_common_terms("coffee | lisbon | walk", 0.1) == "lisbon | walk"


def test_a_query_of_common_words_only_is_kept_whole(shares):
    assert retrievers.drop_common_terms("coffee | walk", 0.05) == "coffee | walk"


def test_it_is_off_unless_configured():
    assert FullTextConfig().max_term_share is None
    with pytest.raises(ValueError):
        FullTextConfig(max_term_share=0)
