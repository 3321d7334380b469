"""Which facts count at a time: pure checks of the filters and the recipe (no servers)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graphiti_core.search.search_config import EdgeReranker, EdgeSearchMethod
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import ComparisonOperator

from memoryapp.graph.validity import edge_hybrid_search_bfs_rrf
from memoryapp.graph.validity import is_valid as _valid
from memoryapp.graph.validity import same_time as _same_time
from memoryapp.graph.validity import search_filters as _filters

NOW = datetime(2026, 1, 10, tzinfo=UTC)
T0, T1 = NOW - timedelta(days=10), NOW - timedelta(days=5)


def test_it_keeps_a_current_fact_and_drops_an_ended_one():
    assert _valid(T0, None, None, None, False, NOW)
    assert not _valid(T0, T1, None, None, False, NOW)
    assert _valid(T0, NOW + timedelta(days=1), None, None, False, NOW)  # ends in the future
    assert not _valid(T0, None, T1, None, False, NOW)  # expired by graphiti


def test_it_answers_as_of_a_time_from_the_validity_window():
    between = T0 + timedelta(days=1)
    assert _valid(T0, T1, None, between, False, NOW)
    assert not _valid(T0, T1, None, T1, False, NOW)  # ends exactly then: no longer true
    assert not _valid(T1, None, None, between, False, NOW)  # not yet true
    assert _valid(None, None, None, between, False, NOW)  # open start counts as always


def test_it_keeps_everything_for_history():
    assert _valid(T0, T1, T1, None, True, NOW)


def test_it_pushes_the_same_rules_down_as_search_filters():
    as_of = _filters(T0, False)
    assert [[f.comparison_operator for f in group] for group in as_of.valid_at] == [
        [ComparisonOperator.less_than_equal],
        [ComparisonOperator.is_null],
    ]
    assert [[f.comparison_operator for f in group] for group in as_of.invalid_at] == [
        [ComparisonOperator.is_null],
        [ComparisonOperator.greater_than],
    ]
    current = _filters(None, False)
    assert current.expired_at is not None and current.valid_at is None
    history = _filters(None, True)
    assert history.valid_at is history.invalid_at is history.expired_at is None


def test_it_derives_its_recipe_without_mutating_graphitis():
    recipe = edge_hybrid_search_bfs_rrf()
    assert recipe.edge_config.search_methods == [
        EdgeSearchMethod.bm25,
        EdgeSearchMethod.cosine_similarity,
        EdgeSearchMethod.bfs,
    ]
    assert recipe.edge_config.reranker == EdgeReranker.rrf
    assert EdgeSearchMethod.bfs not in EDGE_HYBRID_SEARCH_RRF.edge_config.search_methods
    assert recipe.model_copy(update={"limit": 3}).limit == 3 and recipe.limit != 3


def test_it_compares_times_to_the_millisecond():
    assert _same_time(T0 + timedelta(microseconds=400), T0)
    assert not _same_time(T0 + timedelta(seconds=1), T0)
    assert not _same_time(None, T0)
