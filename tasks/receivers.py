"""Keep the graph in step with memory rows: every committed change queues a sync (the outbox).

`memory_changed` is sent after commit, so the worker always sees the committed row. A change
puts the row back to pending first (so a sync already running will not mark it synced with
stale content), then queues `tasks.graph_sync.sync_memory`. A purge queues the episode's removal;
purging all of a user's memories queues the removal of the user's whole graph.
Nothing here may fail the writer: a broker that is down only leaves the row pending for the drain.

The engine sends the signal and knows no task; TasksConfig.ready() connects this receiver.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction

from .graph_sync import drop_user, purge_episode, sync_memory

log = logging.getLogger(__name__)

# Changes the graph does not reflect: no work, no model calls. Deleted and forgotten change only the
# row's status, which recall reads from the row (the graph serves no fact of a row it filters out).
# Restored still syncs: undoing a learnt memory also clears its predecessor's valid_until.
IGNORED_ACTIONS = frozenset({"boosted", "accessed", "demoted", "promoted", "exported", "deleted", "forgotten"})


def on_memory_changed(sender: Any, memory_id: int | None, user_id: int, action: str, **kwargs: Any) -> None:
    if memory_id is None:  # a bulk write: its new rows are pending, the drain syncs them (a purge of all: below)
        return
    if action == "purged":
        if kwargs.get("episode_id"):
            _enqueue_on_commit(purge_episode.delay, kwargs["episode_id"], user_id)
        return
    if action in IGNORED_ACTIONS:
        return
    from memoryapp.models import GraphSyncState, Memory

    Memory.objects.filter(pk=memory_id).exclude(graph_sync_state=GraphSyncState.PENDING).update(
        graph_sync_state=GraphSyncState.PENDING
    )
    _enqueue_on_commit(sync_memory.delay, memory_id)


def on_all_memories_purged(sender: Any, user_id: int, **kwargs: Any) -> None:
    _enqueue_on_commit(drop_user.delay, user_id)


def _enqueue_on_commit(delay: Callable[..., Any], *args: Any) -> None:
    # Like Celery's delay_on_commit (runs now outside a transaction), but a broker error is
    # logged, never raised into the writer: the row is pending and drain_pending will find it.
    transaction.on_commit(functools.partial(_enqueue, delay, *args), robust=True)


def _enqueue(delay: Callable[..., Any], *args: Any) -> None:
    try:
        delay(*args)
    except Exception:
        log.exception("could not queue graph work %s%r; the drain will retry", getattr(delay, "__name__", ""), args)
