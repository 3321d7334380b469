"""Keep the graph in step with memory rows: every committed change queues a sync (the outbox).

`memory_changed` is sent after commit, so the worker always sees the committed row. A change
puts the row back to pending first (so a sync already running will not mark it synced with
stale content), then queues `tasks.graph_sync.sync_memory`. A purge queues the episode's removal.
Nothing here may fail the writer: a broker that is down only leaves the row pending for the drain.
"""
from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from memoryapp.engine.signals import memory_changed

log = logging.getLogger(__name__)

# Changes the graph does not reflect: no work, no model calls.
IGNORED_ACTIONS = frozenset({"boosted", "accessed", "demoted", "promoted", "exported"})


@receiver(memory_changed, dispatch_uid="memoryapp.graph.on_memory_changed")
def on_memory_changed(sender: Any, memory_id: int, user_id: int, action: str, **kwargs: Any) -> None:
    try:
        if action == "purged":
            episode_id = kwargs.get("episode_id") or ""
            if episode_id:
                from tasks.graph_sync import purge_episode

                purge_episode.delay_on_commit(episode_id, user_id)
            return
        if action in IGNORED_ACTIONS:
            return
        from memoryapp.models import GraphSyncState, Memory
        from tasks.graph_sync import sync_memory

        Memory.objects.filter(pk=memory_id).exclude(graph_sync_state=GraphSyncState.PENDING).update(
            graph_sync_state=GraphSyncState.PENDING
        )
        sync_memory.delay_on_commit(memory_id)
    except Exception:  # the broker may be down; the row stays pending and drain_pending retries it
        log.exception("could not queue the graph sync of memory %s (%s)", memory_id, action)
