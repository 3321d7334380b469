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


# Every connection starts with these (memoryapp/engine/recall/session.py); a config asking for other values has
# them set around its own query only.
DEFAULT_EF_SEARCH = 80
DEFAULT_TRIGRAM_THRESHOLD = 0.3


class VectorConfig(_Frozen):
    enabled: bool = True
    limit: int = Field(default=100, ge=1, le=1000)
    # HNSW's search breadth (pgvector's hnsw.ef_search).
    ef_search: int = Field(default=DEFAULT_EF_SEARCH, ge=10, le=1000)
    weight: float = 1.0
    # A memory's cosine is the better of its content's and its cues' (Memory.cues): the situations a
    # model wrote for it find what a message implies but does not say. False: the content's alone.
    cues: bool = True
    # The cues' cosine counts this much less than the content's. 0: the better of the two as it is. On
    # bench.chat's dev turns 0.06 kept the hits and cut the English no-memory injections from 0.116 to
    # 0.093 (plain: 0.046) but cost the holdout's Chinese hits (docs/benchmarks/chat.md, "Cues").
    cue_margin: float = Field(default=0.0, ge=0, le=1)


class FullTextConfig(_Frozen):
    enabled: bool = True
    limit: int = Field(default=100, ge=1, le=1000)
    # Shared words are stronger evidence than MiniLM's nearness on conversational text (LoCoMo dev).
    weight: float = 1.5
    candidate_cap: int = Field(default=1000, ge=1)
    # BM25: each matched word weighs by its rarity among the user's memories (IDF), with BM25's
    # term-frequency saturation (k1) and length normalisation (b); standard k1 and b. (Postgres'
    # ts_rank_cd measured worse with context indexed, recall@10 0.650 vs 0.704, and was removed.)
    k1: float = Field(default=1.2, ge=0)
    b: float = Field(default=0.75, ge=0, le=1)
    # A word of the memory's cues counts this much of a word of the memory itself.
    cue_weight: float = Field(default=1.0, ge=0, le=1)
    # A word of the memory's context or date counts this much of a word of the memory itself
    # (0.4 to 1.0 all measured 0.70-0.71 recall@10; half is the middle of that plateau).
    context_weight: float = Field(default=0.5, ge=0, le=1)
    # False: only the memory's own words match (the page's "Words only"), not its context's or date's.
    match_context: bool = True
    count_cap: int = Field(default=10_000, ge=1)  # BM25's N, counted up to this


class TrigramConfig(_Frozen):
    """Fuzzy match. Short queries (typos, partial words) scan the trigram index; longer ones only
    re-rank what the vector and full-text retrievers found (a scan re-checks thousands of rows)."""

    enabled: bool = True
    limit: int = Field(default=20, ge=1, le=1000)
    scan_max_chars: int = 16
    # False: longer queries skip the re-rank (word_similarity per candidate was a third of the
    # Postgres-only statement on LoCoMo dev and did not move recall@10; docs/recall.md).
    rerank: bool = True
    candidate_cap: int = Field(default=500, ge=1)
    max_query_chars: int = 512
    # Also the trigram index's cut (pg_trgm.word_similarity_threshold) when a short query scans it.
    min_similarity: float = Field(default=DEFAULT_TRIGRAM_THRESHOLD, ge=0, le=1)
    weight: float = 0.5
    # A user with fewer memories than this has each row checked instead of the trigram index read: the
    # index is over every user, and a common spelling matched ~98k rows of others (~400 ms) before the
    # few hundred of a small user were picked out (bench.scale --tenants; docs/benchmarks/speed.md, "Many users").
    row_check_below: int = Field(default=1000, ge=0)


class GraphConfig(_Frozen):
    enabled: bool = True
    limit: int = Field(default=20, ge=1, le=200)
    time_budget_ms: int = Field(default=150, ge=1)
    weight: float = 1.0


class FusionConfig(_Frozen):
    rrf_k: int = Field(default=20, ge=1)
    # similarity = rank_share * rrf_normalised + (1 - rank_share) * cosine. Rank alone ranks best on
    # LoCoMo dev; the evidence gate (RecallConfig.min_cosine) keeps unrelated memories out instead.
    rank_share: float = Field(default=1.0, ge=0, le=1)


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
    # Evidence gate: a memory counts only if the embedder finds it this close, or (with `found_is_evidence`)
    # a lexical retriever (full text, trigram scan) or the graph found it. Rank fusion alone always has a
    # "best" memory.
    min_cosine: float = Field(default=0.0, ge=-1, le=1)
    found_is_evidence: bool = True
    # The episode rule: a chat episode counts only when the embedder finds it at least this close (and
    # `min_cosine`), whatever else found it; None: as any memory. An episode tells what one chat settled,
    # so it is worth a turn only when the turn is clearly about that (recipes.RECALL_CHAT).
    episode_min_cosine: float | None = Field(default=None, ge=-1, le=1)
