"""What recall runs, as data (graphiti's search_config style). Recipes in recipes.py; never mutate
one: derive with `model_copy(update=...)`."""
from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field


class Source(str, Enum):
    VECTOR = "vector"
    FULL_TEXT = "full_text"
    TRIGRAM = "trigram"
    GRAPH = "graph"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class VectorConfig(_Frozen):
    enabled: bool = True
    limit: int = Field(default=40, ge=1, le=1000)
    ef_search: int = Field(default=80, ge=10, le=1000)
    weight: float = 1.0


class FullTextConfig(_Frozen):
    enabled: bool = True
    limit: int = Field(default=40, ge=1, le=1000)
    weight: float = 1.0


class TrigramConfig(_Frozen):
    """Fuzzy match for short queries (typos, partial words); skipped for long ones."""

    enabled: bool = True
    limit: int = Field(default=20, ge=1, le=1000)
    max_query_chars: int = 64
    min_similarity: float = Field(default=0.3, ge=0, le=1)
    weight: float = 0.5


class GraphConfig(_Frozen):
    enabled: bool = True
    limit: int = Field(default=20, ge=1, le=200)
    time_budget_ms: int = Field(default=150, ge=1)
    weight: float = 1.0


class FusionConfig(_Frozen):
    rrf_k: int = Field(default=60, ge=1)
    # similarity = rank_share * rrf_normalised + (1 - rank_share) * cosine
    rank_share: float = Field(default=0.5, ge=0, le=1)


class ScoringConfig(_Frozen):
    similarity: float = 0.6
    importance: float = 0.25
    recency: float = 0.15
    half_life_days: float = Field(default=30.0, gt=0)


class RecallConfig(_Frozen):
    vector: VectorConfig = VectorConfig()
    full_text: FullTextConfig = FullTextConfig()
    trigram: TrigramConfig = TrigramConfig()
    graph: GraphConfig = GraphConfig()
    fusion: FusionConfig = FusionConfig()
    scoring: ScoringConfig = ScoringConfig()
    limit: int = Field(default=3, ge=1, le=500)
    threshold: float = Field(default=0.0, ge=0, le=1)
