"""The outbox: bring one memory row's graph episode in line with the row, at most one worker at a time.

State lives on the row: `graph_sync_state` pending -> syncing -> synced (or failed), with
`graph_synced_at` holding the claim's start while syncing and the finish time once synced.
A claim is a conditional update that must change exactly one row (as healthchecks' sendalerts
claims a check); any change to the memory puts it back to pending (tasks/receivers.py), which makes
the running sync's final conditional update miss, so the newer content is synced next.

A slow, failing or offline graph never fails a write: the row simply stays pending.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from enum import Enum

from django.db.models import Q
from django.utils import timezone

from .backend import get_graph
from .conf import graph_config
from .errors import GraphError, GraphOffline, GraphOutputError, GraphUnavailable
from .port import GraphPort

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=15)  # a claim older than this belonged to a worker that died


class SyncOutcome(str, Enum):
    SYNCED = "synced"  # episode added or replaced (model calls made)
    UNCHANGED = "unchanged"  # episode already matched the row; validity refreshed only
    SKIPPED = "skipped"  # already synced, or another worker holds the claim
    OFFLINE = "offline"  # no language model: left pending for `graph_sync` / the drain
    OFF = "off"  # GRAPH_BACKEND=off
    MISSING = "missing"  # the row is gone (purged meanwhile)
    FAILED = "failed"  # the engine could not use this memory; marked failed, not retried
    REQUEUED = "requeued"  # the row changed while syncing; the newer version syncs next


def graph_can_write(graph: GraphPort) -> bool:
    """graphiti needs a language model to build facts; Zep extracts on its own server."""
    if not getattr(graph, "needs_llm", True):
        return True
    from memoryapp.providers.llm import llm_configured

    return llm_configured()


def sync_memory(memory_id: int, graph: GraphPort | None = None) -> SyncOutcome:
    """Sync one memory. Raises GraphUnavailable (retry later) after putting the row back to pending."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    if graph is None:
        if graph_config().backend == "off":
            return SyncOutcome.OFF
        graph = get_graph()
    memory = Memory.objects.filter(pk=memory_id).first()
    if memory is None:
        return SyncOutcome.MISSING
    if memory.graph_sync_state == S.SYNCED:
        return SyncOutcome.SKIPPED  # idempotent: a redelivered or duplicate task does nothing
    if not graph_can_write(graph):
        return SyncOutcome.OFFLINE
    now = timezone.now()
    prior_at = memory.graph_synced_at
    claimable = Q(graph_sync_state=memory.graph_sync_state, graph_synced_at=prior_at)
    if prior_at is None:
        claimable = Q(graph_sync_state=memory.graph_sync_state, graph_synced_at__isnull=True)
    if memory.graph_sync_state == S.SYNCING and (prior_at is None or now - prior_at < LEASE):
        return SyncOutcome.SKIPPED  # a live claim
    if not Memory.objects.filter(claimable, pk=memory_id).update(graph_sync_state=S.SYNCING, graph_synced_at=now):
        return SyncOutcome.SKIPPED
    mine = Memory.objects.filter(pk=memory_id, graph_sync_state=S.SYNCING, graph_synced_at=now)
    memory.refresh_from_db()  # the content as of the claim, not as of the first read
    old_episode = memory.graph_episode_id
    try:
        episode_id = graph.sync_memory(memory)
    except GraphOffline:
        mine.update(graph_sync_state=S.PENDING, graph_synced_at=prior_at)
        return SyncOutcome.OFFLINE
    except GraphOutputError as exc:
        log.warning("graph sync of memory %s failed for good: %s", memory_id, exc.message)
        mine.update(graph_sync_state=S.FAILED, graph_synced_at=prior_at)
        return SyncOutcome.FAILED
    except BaseException:
        mine.update(graph_sync_state=S.PENDING, graph_synced_at=prior_at)
        raise
    if mine.update(graph_sync_state=S.SYNCED, graph_episode_id=episode_id, graph_synced_at=timezone.now()):
        return SyncOutcome.UNCHANGED if episode_id == old_episode else SyncOutcome.SYNCED
    # Changed (or purged) while we worked: keep our episode id unless a newer sync already replaced it.
    if episode_id != old_episode and not Memory.objects.filter(
        pk=memory_id, graph_episode_id=old_episode
    ).update(graph_episode_id=episode_id):
        _purge_quietly(graph, episode_id, memory.user_id)
    return SyncOutcome.REQUEUED


def purge_episode(episode_id: str, user_id: int) -> None:
    """Remove a purged memory's episode; raises GraphUnavailable to be retried."""
    if episode_id:
        get_graph().purge(episode_id, user_id)


def drop_user(user_id: int) -> bool:
    """Remove the user's whole graph; False when the graph is off. Raises GraphUnavailable to be retried."""
    if graph_config().backend == "off":
        return False
    get_graph().drop_user(user_id)
    return True


def _purge_quietly(graph: GraphPort, episode_id: str, user_id: int) -> None:
    try:
        graph.purge(episode_id, user_id)
    except GraphError as exc:  # an orphan episode maps to no row; a rebuild removes it
        log.warning("could not remove orphan episode %s: %s", episode_id, exc.message)


def pending_ids(*, user_id: int | None = None, include_failed: bool = False) -> list[int]:
    """Rows waiting for the graph: pending, stale claims, and optionally failed ones, oldest first."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    states = [S.PENDING, S.FAILED] if include_failed else [S.PENDING]
    stale = Q(graph_sync_state=S.SYNCING, graph_synced_at__lt=timezone.now() - LEASE)
    rows = Memory.objects.filter(Q(graph_sync_state__in=states) | stale)
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    return list(rows.order_by("valid_from", "id").values_list("id", flat=True))


def backfill(
    *, user_id: int | None = None, include_failed: bool = False,
    progress: Callable[[int, int, int, SyncOutcome | str, float], None] | None = None,
) -> dict[str, int]:
    """Sync every waiting row in this process (the `graph_sync` command); counts by outcome."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    if include_failed:  # give failed rows another go
        rows = Memory.objects.filter(graph_sync_state=S.FAILED)
        (rows.filter(user_id=user_id) if user_id is not None else rows).update(graph_sync_state=S.PENDING)
    ids = pending_ids(user_id=user_id)
    counts: dict[str, int] = {}
    for n, memory_id in enumerate(ids, 1):
        started = time.monotonic()
        try:
            outcome: SyncOutcome | str = sync_memory(memory_id)
        except GraphUnavailable as exc:
            outcome = "unavailable"
            log.warning("graph unavailable while backfilling memory %s: %s", memory_id, exc.message)
        key = outcome.value if isinstance(outcome, SyncOutcome) else outcome
        counts[key] = counts.get(key, 0) + 1
        if progress:
            progress(n, len(ids), memory_id, outcome, time.monotonic() - started)
        if outcome in ("unavailable", SyncOutcome.OFFLINE, SyncOutcome.OFF):
            break  # the rest would fail the same way; they stay pending
    return counts


def rebuild_from_rows(graph: GraphPort, user_id: int,
                      progress: Callable[[int, int, int, SyncOutcome | str, float], None] | None = None,
                      ) -> dict[int, str]:
    """Drop the user's graph and re-add every memory row (any status; recall filters), oldest first;
    returns memory id -> episode id."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    if not graph_can_write(graph):
        raise GraphOffline()
    graph.drop_user(user_id)
    Memory.objects.filter(user_id=user_id).update(graph_sync_state=S.PENDING, graph_episode_id="", graph_synced_at=None)
    ids = pending_ids(user_id=user_id)
    for n, memory_id in enumerate(ids, 1):
        started = time.monotonic()
        outcome = sync_memory(memory_id, graph)
        if progress:
            progress(n, len(ids), memory_id, outcome, time.monotonic() - started)
    return dict(Memory.objects.filter(user_id=user_id).exclude(graph_episode_id="").values_list("id", "graph_episode_id"))
