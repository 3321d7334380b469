"""Config variants: each derives from RECALL_POSTGRES_ONLY without mutating it."""

from __future__ import annotations

import pytest

from bench.variants import VARIANTS, resolve
from memoryapp.engine.recall.config import FusionConfig
from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY


def test_it_builds_every_variant_at_the_asked_limit():
    for name in VARIANTS:
        config = resolve(name, 20)
        assert config.limit == 20
        assert config.graph.enabled is False, name


def test_it_changes_only_the_named_parts():
    config = resolve("wide_rank_only", 20)
    assert (config.vector.limit, config.full_text.limit, config.fusion.rank_share) == (100, 100, 1.0)
    assert config.trigram == RECALL_POSTGRES_ONLY.trigram
    assert resolve("rank_0.75", 20).fusion.rank_share == 0.75
    assert RECALL_POSTGRES_ONLY.fusion.rank_share == FusionConfig().rank_share  # the recipe is untouched


def test_it_refuses_an_unknown_variant():
    with pytest.raises(SystemExit):
        resolve("nope", 10)
