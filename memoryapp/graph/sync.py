"""The outbox: bring memory rows' graph episodes in line with the rows, at most one worker per row.

State lives on the row: `graph_sync_state` pending -> syncing -> synced (or failed), with
`graph_synced_at` holding the claim's start while syncing and the finish time once synced.
A claim is a conditional update that takes only rows no live worker holds (as healthchecks' sendalerts
claims a check); any change to the memory puts it back to pending (tasks/receivers.py), which makes
the running sync's final conditional update miss, so the newer content is synced next.

Rows are synced in batches of one user's memories (`sync_batch`: one claim, one graph call, one finishing
update); a single memory is a batch of one. The sync task takes its memory with the user's rows waiting
before it (`sync_through`); `graph_sync` and `--rebuild` go through all waiting rows a batch at a time.

A slow, failing or offline graph never fails a write: the row simply stays pending.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from enum import Enum

from django.db.models import Q
from django.utils import timezone

from .backend import get_graph
from .conf import graph_config
from .errors import GraphError, GraphOffline, GraphOutputError, GraphUnavailable
from .port import GraphPort

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=15)  # a claim older than this belonged to a worker that died
# What a sync reads of a row (graphiti.MemorySnapshot, zep): not its search columns or cue vectors.
SNAPSHOT_FIELDS = (
    "id",
    "user_id",
    "content",
    "kind",
    "valid_from",
    "valid_until",
    "embedding",
    "graph_episode_id",
    "graph_sync_state",
    "graph_synced_at",
)


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
    """Sync one memory: a batch of one. Raises GraphUnavailable (retry later) after putting the row back to
    pending."""
    return sync_batch([memory_id], graph)[memory_id]


def sync_through(memory_id: int) -> dict[int, SyncOutcome]:
    """The sync task: this memory and its user's rows waiting before it (oldest first), a batch at a time, so
    a burst of writes (an import, a backlog after an outage, the drain) costs a few round trips per batch
    instead of a few per memory. Outcomes by memory id; a row already synced is skipped alone (a redelivered
    or duplicate task touches nothing else)."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    row = Memory.objects.filter(pk=memory_id).values("user_id", "valid_from", "graph_sync_state").first()
    if row is None or row["graph_sync_state"] == S.SYNCED or graph_config().backend == "off":
        return sync_batch([memory_id])
    graph = get_graph()
    before = [i for i in pending_ids(user_id=row["user_id"], through=(row["valid_from"], memory_id)) if i != memory_id]
    outcomes: dict[int, SyncOutcome] = {}
    for batch in _batches([*before, memory_id], graph):
        outcomes.update(sync_batch(batch, graph))
        if SyncOutcome.OFFLINE in outcomes.values():
            break  # the rest would wait the same way
    outcomes.setdefault(memory_id, SyncOutcome.OFFLINE)
    return outcomes


def sync_batch(memory_ids: list[int], graph: GraphPort | None = None) -> dict[int, SyncOutcome]:
    """Sync these memories of one user together: claim the waiting ones in one update, write them with one
    graph call, finish them in one update. Raises GraphUnavailable after putting the claimed rows back to
    pending."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    if graph is None:
        if graph_config().backend == "off":
            return dict.fromkeys(memory_ids, SyncOutcome.OFF)
        graph = get_graph()
    outcomes = dict.fromkeys(memory_ids, SyncOutcome.MISSING)
    rows = {
        r["id"]: r
        for r in Memory.objects.filter(pk__in=memory_ids).values("id", "user_id", "graph_sync_state", "graph_synced_at")
    }
    waiting = []
    for memory_id, row in rows.items():
        outcomes[memory_id] = SyncOutcome.SKIPPED  # already synced, or claimed by another worker
        if row["graph_sync_state"] != S.SYNCED:
            waiting.append(memory_id)
    if not waiting:
        return outcomes
    if len({rows[i]["user_id"] for i in waiting}) > 1:
        raise ValueError("sync_batch takes the memories of one user")
    if not graph_can_write(graph):
        outcomes.update(dict.fromkeys(waiting, SyncOutcome.OFFLINE))
        return outcomes
    now = timezone.now()
    claimable = (
        Q(graph_sync_state__in=[S.PENDING, S.FAILED])
        | Q(graph_sync_state=S.SYNCING, graph_synced_at__lt=now - LEASE)
        | Q(graph_sync_state=S.SYNCING, graph_synced_at__isnull=True)
    )
    if not Memory.objects.filter(claimable, pk__in=waiting).update(graph_sync_state=S.SYNCING, graph_synced_at=now):
        return outcomes
    # The content as of the claim; a row changed since (back to pending) is its own task's again.
    mine = list(
        Memory.objects.filter(pk__in=waiting, graph_sync_state=S.SYNCING, graph_synced_at=now)
        .only(*SNAPSHOT_FIELDS)
        .order_by("valid_from", "id")
    )
    outcomes.update(dict.fromkeys((i for i in waiting if i not in {m.pk for m in mine}), SyncOutcome.REQUEUED))
    if not mine:
        return outcomes
    prior_at = {m.pk: rows[m.pk]["graph_synced_at"] for m in mine}
    try:
        episode_ids = _write(graph, mine)
    except GraphOffline:
        _release(mine, now, S.PENDING, prior_at)
        outcomes.update(dict.fromkeys(prior_at, SyncOutcome.OFFLINE))
        return outcomes
    except GraphOutputError as exc:
        _release(mine, now, S.FAILED, prior_at)
        if len(mine) > 1:  # find the one the graph could not use; the others sync alone
            for memory in mine:
                outcomes.update(sync_batch([memory.pk], graph))
            return outcomes
        log.warning("graph sync of memory %s failed for good: %s", mine[0].pk, exc.message)
        outcomes[mine[0].pk] = SyncOutcome.FAILED
        return outcomes
    except BaseException:
        _release(mine, now, S.PENDING, prior_at)
        raise
    finished = _finish(now, episode_ids)
    for memory in mine:
        episode_id = episode_ids[memory.pk]
        if memory.pk in finished:
            outcomes[memory.pk] = SyncOutcome.UNCHANGED if episode_id == memory.graph_episode_id else SyncOutcome.SYNCED
            continue
        # Changed (or purged) while we worked: keep our episode id unless a newer sync already replaced it.
        outcomes[memory.pk] = SyncOutcome.REQUEUED
        if episode_id != memory.graph_episode_id and not Memory.objects.filter(
            pk=memory.pk, graph_episode_id=memory.graph_episode_id
        ).update(graph_episode_id=episode_id):
            _purge_quietly(graph, episode_id, memory.user_id)
    return outcomes


def _batches(memory_ids: list[int], graph: GraphPort) -> list[list[int]]:
    size = max(1, int(getattr(graph, "sync_batch_size", 1)))
    return [memory_ids[i : i + size] for i in range(0, len(memory_ids), size)]


def _write(graph: GraphPort, memories: list) -> dict[int, str]:
    """The graph call: memory id -> episode id."""
    if len(memories) == 1 or not hasattr(graph, "sync_memories"):
        return {memory.pk: graph.sync_memory(memory) for memory in memories}
    return dict(zip((memory.pk for memory in memories), graph.sync_memories(memories)))


def _release(memories: list, claimed_at, state: str, prior_at: dict) -> None:
    """Give up our claim: back to `state` with each row's previous sync time (one update per distinct time;
    a batch of fresh rows has one, None)."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    by_time: dict = {}
    for memory in memories:
        by_time.setdefault(prior_at[memory.pk], []).append(memory.pk)
    for at, ids in by_time.items():
        Memory.objects.filter(pk__in=ids, graph_sync_state=S.SYNCING, graph_synced_at=claimed_at).update(
            graph_sync_state=state, graph_synced_at=at
        )


def _finish(claimed_at, episode_ids: dict[int, str]) -> set[int]:
    """Mark the rows still under our claim synced with their episode ids, in one statement; the ids it
    marked (a row changed meanwhile is pending again and is left alone)."""
    from django.db import connection

    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    table = connection.ops.quote_name(Memory._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS m SET graph_sync_state = %s, graph_episode_id = v.episode, graph_synced_at = %s "
            "FROM unnest(%s::bigint[], %s::text[]) AS v(id, episode) "
            "WHERE m.id = v.id AND m.graph_sync_state = %s AND m.graph_synced_at = %s RETURNING m.id",
            [S.SYNCED, timezone.now(), list(episode_ids), list(episode_ids.values()), S.SYNCING, claimed_at],
        )
        return {row[0] for row in cursor.fetchall()}


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


def pending_owners() -> list[tuple[int, int]]:
    """(memory id, user id) of every waiting row, oldest first (the drain)."""
    return list(_waiting().values_list("id", "user_id"))


def pending_ids(
    *, user_id: int | None = None, include_failed: bool = False, through: tuple[datetime, int] | None = None
) -> list[int]:
    """Rows waiting for the graph: pending, stale claims, and optionally failed ones, oldest first (by
    valid_from, then id; `through` = (valid_from, id) of the last one wanted)."""
    rows = _waiting(include_failed)
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    if through is not None:
        rows = rows.filter(Q(valid_from__lt=through[0]) | Q(valid_from=through[0], id__lte=through[1]))
    return list(rows.values_list("id", flat=True))


def _waiting(include_failed: bool = False):
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    states = [S.PENDING, S.FAILED] if include_failed else [S.PENDING]
    stale = Q(graph_sync_state=S.SYNCING, graph_synced_at__lt=timezone.now() - LEASE)
    return Memory.objects.filter(Q(graph_sync_state__in=states) | stale).order_by("valid_from", "id")


Progress = Callable[[int, int, int, "SyncOutcome | str", float], None]


def backfill(
    *, user_id: int | None = None, include_failed: bool = False, progress: Progress | None = None
) -> dict[str, int]:
    """Sync every waiting row in this process (the `graph_sync` command), a batch of one user's rows at a
    time; counts by outcome. `progress` hears of each memory once its batch is done."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    if include_failed:  # give failed rows another go
        failed = Memory.objects.filter(graph_sync_state=S.FAILED)
        (failed.filter(user_id=user_id) if user_id is not None else failed).update(graph_sync_state=S.PENDING)
    rows = _waiting()
    owners = list((rows if user_id is None else rows.filter(user_id=user_id)).values_list("id", "user_id"))
    ids = [memory_id for memory_id, _ in owners]
    counts: dict[str, int] = {}
    if not ids:
        return counts
    if graph_config().backend == "off":
        return {SyncOutcome.OFF.value: len(ids)}
    graph = get_graph()
    done = 0
    for batch in _user_batches(owners, graph):
        started = time.monotonic()
        try:
            outcomes: dict[int, SyncOutcome | str] = dict(sync_batch(batch, graph))
        except GraphUnavailable as exc:
            outcomes = dict.fromkeys(batch, "unavailable")
            log.warning("graph unavailable while backfilling memories %s..%s: %s", batch[0], batch[-1], exc.message)
        done = _report(outcomes, batch, done, len(ids), time.monotonic() - started, progress, counts)
        if {"unavailable", SyncOutcome.OFFLINE, SyncOutcome.OFF} & set(outcomes.values()):
            break  # the rest would fail the same way; they stay pending
    return counts


def rebuild_from_rows(graph: GraphPort, user_id: int, progress: Progress | None = None) -> dict[int, str]:
    """Drop the user's graph and re-add every memory row (any status; recall filters), oldest first, a batch
    at a time; returns memory id -> episode id."""
    from memoryapp.models import GraphSyncState as S
    from memoryapp.models import Memory

    if not graph_can_write(graph):
        raise GraphOffline()
    graph.drop_user(user_id)
    Memory.objects.filter(user_id=user_id).update(graph_sync_state=S.PENDING, graph_episode_id="", graph_synced_at=None)
    ids = pending_ids(user_id=user_id)
    done, counts = 0, {}
    for batch in _batches(ids, graph):
        started = time.monotonic()
        outcomes = sync_batch(batch, graph)
        done = _report(outcomes, batch, done, len(ids), time.monotonic() - started, progress, counts)
    return dict(
        Memory.objects.filter(user_id=user_id).exclude(graph_episode_id="").values_list("id", "graph_episode_id")
    )


def _user_batches(owners: list[tuple[int, int]], graph: GraphPort) -> list[list[int]]:
    """Batches of one user's rows each, every user's in the order given (oldest first)."""
    by_user: dict[int, list[int]] = {}
    for memory_id, user_id in owners:
        by_user.setdefault(user_id, []).append(memory_id)
    return [batch for ids in by_user.values() for batch in _batches(ids, graph)]


def _report(
    outcomes: dict,
    batch: list[int],
    done: int,
    total: int,
    seconds: float,
    progress: Progress | None,
    counts: dict[str, int],
) -> int:
    for memory_id in batch:
        outcome = outcomes[memory_id]
        key = outcome.value if isinstance(outcome, SyncOutcome) else outcome
        counts[key] = counts.get(key, 0) + 1
        done += 1
        if progress:
            progress(done, total, memory_id, outcome, seconds / len(batch))
    return done
