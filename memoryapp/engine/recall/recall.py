"""Hybrid recall: Postgres retrievers in one round trip and the graph in parallel within its time
budget, fused by reciprocal rank, scored (similarity, importance, recency), thresholded, cut to limit.

Configs are in config.py and named presets in recipes.py; `recall()` reads nothing else.
"""

from __future__ import annotations

import functools
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from django.utils import timezone

from memoryapp.models import Memory, MemoryKind, user_id_of

from . import access, fusion, retrievers, scoring
from .config import RecallConfig, Source
from .recipes import RECALL_CHAT
from .retrievers import Candidate, RecallQuery

if TYPE_CHECKING:
    from memoryapp.graph.port import GraphPort
    from memoryapp.providers.embeddings.base import Embedder

logger = logging.getLogger(__name__)
_graph_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graph-recall")


@dataclass(frozen=True)
class RecalledMemory:
    memory: Memory
    score: float
    similarity: float
    cosine: float
    importance: float
    recency: float
    ranks: dict[str, int]


@dataclass
class RecallResults:
    items: list[RecalledMemory] = field(default_factory=list)
    degraded: bool = False  # the graph was enabled but did not answer in time
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def memories(self) -> list[Memory]:
        return [item.memory for item in self.items]


def _start_graph(query: RecallQuery, config: RecallConfig, graph: GraphPort | None):
    if not config.graph.enabled:
        return None
    if graph is None:
        from memoryapp.graph import graph_recall_enabled

        if not graph_recall_enabled():
            return None
    return _graph_pool.submit(retrievers.graph_search, query, config, graph)


def _collect_graph(future, query: RecallQuery, config: RecallConfig) -> tuple[list[tuple[int, float]], bool]:
    if future is None:
        return [], False
    try:
        return future.result(timeout=config.graph.time_budget_ms / 1000), False
    except FutureTimeout:
        logger.warning("graph recall exceeded %d ms; answering from Postgres alone", config.graph.time_budget_ms)
    except Exception as exc:  # the graph must never fail a recall
        logger.warning("graph recall unavailable (%s); answering from Postgres alone", exc)
    return [], True


def recall(
    user,
    query: str,
    *,
    config: RecallConfig = RECALL_CHAT,
    k: int | None = None,
    at: datetime | None = None,
    kinds: list[str] | tuple[str, ...] | None = None,
    include_history: bool = False,
    query_vector: list[float] | None = None,
    record_access: bool = True,
    created_since: datetime | None = None,
    created_until: datetime | None = None,
    status: str = "active",
    embedder: Embedder | None = None,
    graph: GraphPort | None = None,
) -> RecallResults:
    """The user's memories most relevant to `query`, valid at `at` (default now; with `include_history`,
    every version), learnt in [created_since, created_until) when given; `status` other than active
    searches the forgotten or deleted ones (the page, the API). See recipes.py.

    Its clients arrive as arguments, as graphiti's search() receives its own: `embedder` embeds the query
    (default: the configured one, `get_embedder()`), `graph` is the temporal graph asked when the config
    enables it (default: the configured adapter, when `graph_recall_enabled()`)."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    if query_vector is None:
        from memoryapp.providers.embeddings import get_embedder
        from memoryapp.providers.embeddings import query_vector as embed_query

        query_vector = embed_query(embedder or get_embedder(), query)  # e5 embeds a search as "query: "
        timings["embed"] = (time.perf_counter() - started) * 1000
    now = timezone.now()
    request = RecallQuery(
        user_id=user_id_of(user),
        text=query,
        vector=query_vector,
        at=at or now,
        include_history=include_history,
        kinds=tuple(kinds) if kinds else None,
        created_since=created_since,
        created_until=created_until,
        status=status,
    )
    limit = k or config.limit

    search_started = time.perf_counter()
    graph_future = _start_graph(request, config, graph)
    candidates = retrievers.postgres_search(request, config)
    timings["postgres"] = (time.perf_counter() - search_started) * 1000
    graph_hits, degraded = _collect_graph(graph_future, request, config)
    sources = [s.value for s in retrievers.enabled_sources(request, config)]
    if graph_hits:
        _merge_graph_hits(candidates, graph_hits, request, config)
        sources.append(Source.GRAPH.value)

    items = _score(candidates, sources, config, request.at)
    evidence = _evidence_sources(request, config)
    items = [item for item in items if item[0] >= config.threshold and _has_evidence(item[1], config, evidence)]
    items = items[:limit]
    memories = _load([c.id for _, c, *_ in items])
    results = RecallResults(degraded=degraded, timings_ms=timings)
    for score, candidate, similarity, recency in items:
        if candidate.id in memories:
            results.items.append(
                RecalledMemory(
                    memory=memories[candidate.id],
                    score=score,
                    similarity=similarity,
                    cosine=candidate.cosine,
                    importance=candidate.importance,
                    recency=recency,
                    ranks=dict(candidate.ranks),
                )
            )
    timings["search"] = (time.perf_counter() - search_started) * 1000
    timings["total"] = (time.perf_counter() - started) * 1000
    if record_access:
        access.note_access([item.memory.pk for item in results.items])
    return results


# The vectors stay in the database: parsing them back is the slowest part of loading a row.
_LEFT_OUT = ("embedding", "cue_embedding", "search_vector", "search_tokens")


@functools.cache
def _rows_sql() -> str:
    columns = ", ".join(f'"{f.column}"' for f in Memory._meta.concrete_fields if f.name not in _LEFT_OUT)
    return f"SELECT {columns} FROM {Memory._meta.db_table} WHERE id = ANY(%s)"


def _load(ids: list[int]) -> dict[int, Memory]:
    """The chosen rows, as in_bulk with those fields deferred would load them, without building the
    query each recall (the ORM's compiler was a third of the time spent outside the statement)."""
    return {memory.pk: memory for memory in Memory.objects.raw(_rows_sql(), [ids])} if ids else {}


def _evidence_sources(query: RecallQuery, config: RecallConfig) -> set[str]:
    """Retrievers whose hit is evidence by itself: words in common, a close spelling, a graph fact.
    Trigram re-ranking of others' finds is not (it scores every candidate)."""
    sources = {Source.FULL_TEXT.value, Source.GRAPH.value}
    if retrievers.trigram_mode(query, config) == "scan":
        sources.add(Source.TRIGRAM.value)
    return sources


def _has_evidence(candidate: Candidate, config: RecallConfig, lexical: set[str]) -> bool:
    if candidate.kind == MemoryKind.EPISODE and config.episode_min_cosine is not None:
        return candidate.cosine >= max(config.min_cosine, config.episode_min_cosine)
    if candidate.cosine >= config.min_cosine:
        return True
    return config.found_is_evidence and not lexical.isdisjoint(candidate.ranks)


def _merge_graph_hits(
    candidates: dict[int, Candidate], hits: list[tuple[int, float]], query: RecallQuery, config: RecallConfig
) -> None:
    missing = [memory_id for memory_id, _ in hits if memory_id not in candidates]
    candidates.update(retrievers.hydrate(query, missing, config))  # also re-applies scoping to graph results
    for rank, (memory_id, score) in enumerate(hits, start=1):
        if memory_id in candidates:
            candidates[memory_id].ranks.setdefault(Source.GRAPH.value, rank)
            candidates[memory_id].raw.setdefault(Source.GRAPH.value, score)


def _score(candidates: dict[int, Candidate], sources: list[str], config: RecallConfig, now: datetime):
    weights = {
        Source.VECTOR.value: config.vector.weight,
        Source.FULL_TEXT.value: config.full_text.weight,
        Source.TRIGRAM.value: config.trigram.weight,
        Source.GRAPH.value: config.graph.weight,
    }
    ceiling = fusion.rrf_ceiling(sources, weights, config.fusion.rrf_k)
    scored = []
    for candidate in candidates.values():
        rrf = fusion.rrf_score(candidate.ranks, weights, config.fusion.rrf_k) / ceiling
        similarity = fusion.blended_similarity(rrf, candidate.cosine, config.fusion.rank_share)
        recency = scoring.recency(candidate.valid_from, now.timestamp(), config.scoring.half_life_days)
        score = scoring.final_score(similarity, candidate.importance, recency, config.scoring)
        scored.append((score, candidate, similarity, recency))
    scored.sort(key=lambda item: (-item[0], item[1].id))
    return scored
