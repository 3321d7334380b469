"""Fusion and scoring are pure: tested with plain numbers and a named scenario."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from memoryapp.engine.recall import fusion, scoring
from memoryapp.engine.recall.config import RecallConfig, ScoringConfig

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
WEIGHTS = {"vector": 1.0, "full_text": 1.0, "trigram": 0.5}


def test_it_ranks_a_memory_every_source_agrees_on_above_one_only_vector_found():
    # "Where do I work?": the bank memory is first by vector and full text; a tea memory only by vector.
    bank = fusion.rrf_score({"vector": 1, "full_text": 1}, WEIGHTS, k=60)
    tea = fusion.rrf_score({"vector": 2}, WEIGHTS, k=60)
    assert bank > tea


def test_it_normalises_rrf_to_one_for_a_unanimous_first_place():
    sources = ["vector", "full_text", "trigram"]
    top = fusion.rrf_score({s: 1 for s in sources}, WEIGHTS, k=60)
    assert top / fusion.rrf_ceiling(sources, WEIGHTS, k=60) == pytest.approx(1.0)


def test_it_blends_rank_agreement_with_absolute_closeness():
    assert fusion.blended_similarity(1.0, 0.2, rank_share=0.5) == pytest.approx(0.6)
    assert fusion.blended_similarity(0.0, -0.3, rank_share=0.5) == 0.0  # negative cosine counts as none


def test_it_halves_recency_every_half_life():
    config = ScoringConfig()
    now = NOW.timestamp()
    assert scoring.recency(now, now, config.half_life_days) == 1.0
    assert scoring.recency((NOW - timedelta(days=30)).timestamp(), now, 30) == pytest.approx(0.5)
    assert scoring.recency((NOW - timedelta(days=60)).timestamp(), now, 30) == pytest.approx(0.25)
    assert scoring.recency(None, now, 30) == 0.0


def test_it_weights_similarity_importance_and_recency_as_designed():
    config = ScoringConfig()
    assert scoring.final_score(1.0, 0.0, 0.0, config) == pytest.approx(0.6)
    assert scoring.final_score(0.0, 1.0, 0.0, config) == pytest.approx(0.25)
    assert scoring.final_score(0.0, 0.0, 1.0, config) == pytest.approx(0.15)


def test_it_derives_recipes_without_mutating_them():
    from memoryapp.engine.recall.recipes import RECALL_CHAT

    wider = RECALL_CHAT.model_copy(update={"limit": 10})
    assert wider.limit == 10 and RECALL_CHAT.limit == 3
    with pytest.raises(ValidationError) as refused:
        RECALL_CHAT.limit = 5
    assert [error["type"] for error in refused.value.errors()] == ["frozen_instance"]  # refused as frozen
    assert RECALL_CHAT.limit == 3 and isinstance(wider, RecallConfig)
