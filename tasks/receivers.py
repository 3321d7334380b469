"""Keep the graph in step with memory rows: every committed change queues a sync (the outbox).

`memory_changed` is sent after commit, so the worker always sees the committed row. A change
puts the row back to pending first (so a sync already running will not mark it synced with
stale content), then queues `Job.SYNC_MEMORY`. A purge queues the episode's removal
(`Job.PURGE_EPISODE`); purging all of a user's memories queues the removal of the user's whole graph
(`Job.DROP_USER`). Work is asked for through the engine's one seam (engine/jobs.py), like every other
background job: it goes out on commit, and a broker that is down is logged, never raised into the
writer (the row stays pending for the drain).

The engine sends the signal and knows no task; TasksConfig.ready() connects this receiver.
"""

from __future__ import annotations

from typing import Any

from memoryapp.engine import jobs
from memoryapp.engine.jobs import Job

# Changes the graph does not reflect: no work, no model calls. Deleted and forgotten change only the
# row's status, which recall reads from the row (the graph serves no fact of a row it filters out).
# Restored still syncs: undoing a learnt memory also clears its predecessor's valid_until.
IGNORED_ACTIONS = frozenset({"boosted", "accessed", "demoted", "promoted", "exported", "deleted", "forgotten"})


def on_memory_changed(sender: Any, memory_id: int | None, user_id: int, action: str, **kwargs: Any) -> None:
    if memory_id is None:  # a bulk write: its new rows are pending, the drain syncs them (a purge of all: below)
        return
    if action == "purged":
        if kwargs.get("episode_id"):
            jobs.enqueue(Job.PURGE_EPISODE, kwargs["episode_id"], user_id)
        return
    if action in IGNORED_ACTIONS:
        return
    from memoryapp.models import GraphSyncState, Memory

    Memory.objects.filter(pk=memory_id).exclude(graph_sync_state=GraphSyncState.PENDING).update(
        graph_sync_state=GraphSyncState.PENDING
    )
    jobs.enqueue(Job.SYNC_MEMORY, memory_id)


def on_all_memories_purged(sender: Any, user_id: int, **kwargs: Any) -> None:
    jobs.enqueue(Job.DROP_USER, user_id)
