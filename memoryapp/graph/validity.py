"""Which facts count, and when: the search recipe, the temporal filters for FalkorDB, and the
same rules again in Python (FalkorDB compares the stored ISO-8601 strings)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

# Hybrid edge search: BM25 + cosine, then BFS out from the nodes those found, fused by RRF.
# Built lazily from graphiti's EDGE_HYBRID_SEARCH_RRF with model_copy: recipes are never mutated.
_RECIPE: Any = None


def edge_hybrid_search_bfs_rrf() -> Any:
    global _RECIPE
    if _RECIPE is None:
        from graphiti_core.search.search_config import EdgeSearchMethod
        from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

        edge = EDGE_HYBRID_SEARCH_RRF.edge_config.model_copy(
            update={
                "search_methods": [
                    EdgeSearchMethod.bm25,
                    EdgeSearchMethod.cosine_similarity,
                    EdgeSearchMethod.bfs,
                ]
            }
        )
        _RECIPE = EDGE_HYBRID_SEARCH_RRF.model_copy(update={"edge_config": edge})
    return _RECIPE


def search_filters(at: datetime | None, include_history: bool) -> Any:
    from graphiti_core.search.search_filters import ComparisonOperator as Op
    from graphiti_core.search.search_filters import DateFilter, SearchFilters

    if at is not None:  # as of `at`: started by then, not ended by then
        return SearchFilters(
            valid_at=[
                [DateFilter(date=at, comparison_operator=Op.less_than_equal)],
                [DateFilter(comparison_operator=Op.is_null)],
            ],
            invalid_at=[
                [DateFilter(comparison_operator=Op.is_null)],
                [DateFilter(date=at, comparison_operator=Op.greater_than)],
            ],
        )
    if include_history:
        return SearchFilters()
    return SearchFilters(
        invalid_at=[
            [DateFilter(comparison_operator=Op.is_null)],
            [DateFilter(date=timezone.now(), comparison_operator=Op.greater_than)],
        ],
        expired_at=[[DateFilter(comparison_operator=Op.is_null)]],
    )


def is_valid(
    valid_at: datetime | None,
    invalid_at: datetime | None,
    expired_at: datetime | None,
    at: datetime | None,
    include_history: bool,
    now: datetime,
) -> bool:
    if at is not None:
        return (valid_at is None or valid_at <= at) and (invalid_at is None or invalid_at > at)
    if include_history:
        return True
    return expired_at is None and (invalid_at is None or invalid_at > now)


def same_time(a: datetime | None, b: datetime) -> bool:
    return a is not None and abs((a - b).total_seconds()) < 0.001
