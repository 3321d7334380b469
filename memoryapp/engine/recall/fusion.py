"""Reciprocal-rank fusion: pure functions over ranks, so they test with plain dicts."""

from __future__ import annotations

from collections.abc import Mapping


def rrf_score(ranks: Mapping[str, int], weights: Mapping[str, float], k: int) -> float:
    return sum(weights.get(source, 1.0) / (k + rank) for source, rank in ranks.items())


def rrf_ceiling(sources: list[str], weights: Mapping[str, float], k: int) -> float:
    """The score of a memory ranked first by every source that ran: normalises RRF to 0..1."""
    return sum(weights.get(source, 1.0) / (k + 1) for source in sources) or 1.0


def blended_similarity(rrf_normalised: float, cosine: float, rank_share: float) -> float:
    """Rank agreement across sources plus absolute closeness: rank alone would make the nearest of
    unrelated memories look relevant; cosine alone misses keyword hits the embedder cannot see."""
    return rank_share * rrf_normalised + (1 - rank_share) * max(0.0, cosine)
