"""What recall calls: graph facts -> episodes -> memory rows, filtered by the rows (the source of truth)."""

from __future__ import annotations

import logging
import time
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from .backend import get_graph
from .errors import GraphError, GraphUnavailable
from .port import GraphFact, GraphPort

log = logging.getLogger(__name__)


def search_memory_ids(
    user_id: int,
    query: str,
    *,
    at: datetime | None = None,
    limit: int = 10,
    include_history: bool = False,
    timeout_s: float = 1.0,
    query_vector: list[float] | None = None,
    graph: GraphPort | None = None,
) -> list[tuple[int, float]]:
    """(memory_id, score) best first, for the user's memories whose graph facts match `query`.

    Only active memories, current (or valid at `at`), unless include_history. Raises
    GraphUnavailable when the graph is off, down, offline or slower than `timeout_s`; never
    anything else. Call it from sync code (or through sync_to_async from async code).
    `graph`: the adapter to ask (default: the configured one, `get_graph()`).
    """
    started = time.monotonic()
    try:
        facts = (graph or get_graph()).search(
            user_id,
            query,
            at=at,
            limit=limit,
            include_history=include_history,
            timeout_s=timeout_s,
            query_vector=query_vector,
        )
    except GraphUnavailable:
        raise
    except GraphError as exc:
        raise GraphUnavailable(exc.message) from exc
    except Exception as exc:  # the contract: recall only ever sees GraphUnavailable
        log.exception("graph search failed")
        raise GraphUnavailable(f"{type(exc).__name__}: {exc}") from exc
    try:
        return _rank_memories(user_id, facts, at=at, limit=limit, include_history=include_history)
    except Exception as exc:
        log.exception("mapping graph facts to memories failed")
        raise GraphUnavailable(f"{type(exc).__name__}: {exc}") from exc
    finally:
        log.debug("graph search for user %s took %.1f ms", user_id, (time.monotonic() - started) * 1000)


def _rank_memories(
    user_id: int, facts: list[GraphFact], *, at: datetime | None, limit: int, include_history: bool
) -> list[tuple[int, float]]:
    from memoryapp.models import Memory, MemoryStatus

    best: dict[str, float] = {}  # episode id -> best fact score
    for fact in facts:
        for episode_id in fact.episode_ids:
            best[episode_id] = max(best.get(episode_id, float("-inf")), fact.score)
    if not best:
        return []
    rows = Memory.objects.filter(user_id=user_id, graph_episode_id__in=list(best))
    if not include_history:
        rows = rows.filter(status=MemoryStatus.ACTIVE)
    if at is not None:
        rows = rows.filter(valid_from__lte=at).filter(Q(valid_until__isnull=True) | Q(valid_until__gt=at))
    elif not include_history:
        rows = rows.filter(Q(valid_until__isnull=True) | Q(valid_until__gt=timezone.now()))
    scored: dict[int, float] = {}
    for memory_id, episode_id in rows.values_list("id", "graph_episode_id"):
        scored[memory_id] = max(scored.get(memory_id, float("-inf")), best[episode_id])
    ranked = sorted(scored.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:limit]
