"""Recall config variants tried on the dev file, all derived from RECALL_POSTGRES_ONLY (never mutated).

`--variants NAME ...` on bench.locomo evaluates each on the same ingested memories and questions.
"""

from __future__ import annotations

from collections.abc import Callable

from memoryapp.engine.recall.config import RecallConfig
from memoryapp.engine.recall.recipes import RECALL_CHAT, RECALL_POSTGRES_ONLY


def _with(config: RecallConfig, **parts: dict) -> RecallConfig:
    """Copy with nested parts updated: _with(c, fusion={"rank_share": 1.0}, limit=20)."""
    update = {}
    for name, value in parts.items():
        current = getattr(config, name)
        update[name] = current.model_copy(update=value) if isinstance(value, dict) else value
    return config.model_copy(update=update)


_NO_RECENCY = {"recency": 0.0, "importance": 0.0, "similarity": 1.0}


def baseline(limit: int) -> RecallConfig:
    return _with(RECALL_POSTGRES_ONLY, limit=limit)


VARIANTS: dict[str, Callable[[int], RecallConfig]] = {
    "baseline": baseline,
    "rank_only": lambda n: _with(baseline(n), fusion={"rank_share": 1.0}),
    "rank_0.75": lambda n: _with(baseline(n), fusion={"rank_share": 0.75}),
    "cosine_only": lambda n: _with(baseline(n), fusion={"rank_share": 0.0}),
    "no_trigram": lambda n: _with(baseline(n), trigram={"enabled": False}),
    "no_trigram_rank_only": lambda n: _with(baseline(n), trigram={"enabled": False}, fusion={"rank_share": 1.0}),
    "no_recency": lambda n: _with(baseline(n), scoring=_NO_RECENCY),
    "wide_limits": lambda n: _with(baseline(n), vector={"limit": 100}, full_text={"limit": 100}),
    "wide_rank_only": lambda n: _with(
        baseline(n), vector={"limit": 100}, full_text={"limit": 100}, fusion={"rank_share": 1.0}
    ),
    "ft_weight_1.5": lambda n: _with(baseline(n), full_text={"weight": 1.5}),
    "vec_weight_1.5": lambda n: _with(baseline(n), vector={"weight": 1.5}),
    "rrf_k_20": lambda n: _with(baseline(n), fusion={"rrf_k": 20}),
    # Second round: combinations of the first round's winners.
    "wide_rank_ft1.5": lambda n: _with(VARIANTS["wide_rank_only"](n), full_text={"limit": 100, "weight": 1.5}),
    "wide_rank_no_recency": lambda n: _with(VARIANTS["wide_rank_only"](n), scoring=_NO_RECENCY),
    "wide_rank_ft1.5_no_recency": lambda n: _with(VARIANTS["wide_rank_ft1.5"](n), scoring=_NO_RECENCY),
    "wide_rank_ft1.5_rrf20": lambda n: _with(VARIANTS["wide_rank_ft1.5"](n), fusion={"rrf_k": 20}),
    "rank_0.85_wide_ft1.5": lambda n: _with(VARIANTS["wide_rank_ft1.5"](n), fusion={"rank_share": 0.85}),
    # Third round: around the best of the second (wide_rank_ft1.5_rrf20).
    "wide_rank_ft2_rrf20": lambda n: _with(VARIANTS["wide_rank_ft1.5_rrf20"](n), full_text={"weight": 2.0}),
    "wide_rank_ft1.5_rrf10": lambda n: _with(VARIANTS["wide_rank_ft1.5"](n), fusion={"rrf_k": 10}),
    "wider200_rank_ft1.5_rrf20": lambda n: _with(
        VARIANTS["wide_rank_ft1.5_rrf20"](n), vector={"limit": 200}, full_text={"limit": 200}
    ),
    # Issue #8 step 5: engine methods (full-text ranking, context, dates, query rewriting).
    "bm25": lambda n: _with(baseline(n), full_text={}),
    "bm25_b0.3": lambda n: _with(baseline(n), full_text={"b": 0.3}),
    "bm25_ft1": lambda n: _with(baseline(n), full_text={"weight": 1.0}),
    "bm25_ft2": lambda n: _with(baseline(n), full_text={"weight": 2.0}),
    "context_0": lambda n: _with(baseline(n), full_text={"context_weight": 0.0}),
    "context_0.1": lambda n: _with(baseline(n), full_text={"context_weight": 0.1}),
    "context_0.4": lambda n: _with(baseline(n), full_text={"context_weight": 0.4}),
    "context_0.7": lambda n: _with(baseline(n), full_text={"context_weight": 0.7}),
    "bm25_context_0.4": lambda n: _with(baseline(n), full_text={"context_weight": 0.4}),
    "bm25_context_0.2": lambda n: _with(baseline(n), full_text={"context_weight": 0.2}),
    "bm25_context_0.7": lambda n: _with(baseline(n), full_text={"context_weight": 0.7}),
    "bm25_context_1": lambda n: _with(baseline(n), full_text={"context_weight": 1.0}),
    "bm25_context_0.4_b0.4": lambda n: _with(baseline(n), full_text={"context_weight": 0.4, "b": 0.4}),
    "bm25_context_0.4_ft1": lambda n: _with(baseline(n), full_text={"context_weight": 0.4, "weight": 1.0}),
    "bm25_context_0.4_ft2": lambda n: _with(baseline(n), full_text={"context_weight": 0.4, "weight": 2.0}),
    "bm25_context_0.5": lambda n: _with(baseline(n), full_text={"context_weight": 0.5}),
    "bm25_context_0.5_ft2": lambda n: _with(baseline(n), full_text={"context_weight": 0.5, "weight": 2.0}),
    "bm25_context_1_ft2": lambda n: _with(baseline(n), full_text={"context_weight": 1.0, "weight": 2.0}),
    "bm25_context_0.5_no_trigram": lambda n: _with(VARIANTS["bm25_context_0.5"](n), trigram={"enabled": False}),
    # Issue #31: recency and full-text weight again, chosen on conv-26/30/41 (--samples), reported on
    # 42/43/44; the winner (bm25_ft2_no_recency) is now the recipe: before_issue31 is the recipe it replaced.
    "before_issue31": lambda n: _with(
        baseline(n), full_text={"weight": 1.5}, scoring={"similarity": 0.6, "importance": 0.25, "recency": 0.15}
    ),
    "bm25_ft2_no_recency": lambda n: _with(baseline(n), full_text={"weight": 2.0}, scoring=_NO_RECENCY),
    "recency_0.05": lambda n: _with(
        VARIANTS["before_issue31"](n), scoring={"similarity": 0.7, "importance": 0.25, "recency": 0.05}
    ),
    # Round 2 around the kept recipe (same split).
    "ft2.5": lambda n: _with(baseline(n), full_text={"weight": 2.5}),
    "ft3": lambda n: _with(baseline(n), full_text={"weight": 3.0}),
    "rrf_k_40": lambda n: _with(baseline(n), fusion={"rrf_k": 40}),
    "rrf_k_10": lambda n: _with(baseline(n), fusion={"rrf_k": 10}),
    "trigram_0.25": lambda n: _with(baseline(n), trigram={"weight": 0.25}),
    # Issue #35: the recipe before trigram's re-rank of longer questions was dropped from it.
    "trigram_rerank": lambda n: _with(baseline(n), trigram={"rerank": True}),
    # What a chat turn's recall runs (vector and its gates only), timed beside the peers (issue #35); the
    # graph stays out as in every run here without --graph on.
    "chat_recipe": lambda n: _with(RECALL_CHAT, limit=n, graph={"enabled": False}),
}


def resolve(name: str, limit: int) -> RecallConfig:
    try:
        return VARIANTS[name](limit)
    except KeyError:
        raise SystemExit(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}") from None
