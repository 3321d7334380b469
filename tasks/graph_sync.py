"""Graph sync jobs: a memory's episode (with the user's rows waiting before it, in batches), a purged
memory's episode, a user's whole graph, and the periodic drain.

Tasks take ids and re-fetch; they are idempotent (a synced row is skipped; the claim in
memoryapp/graph/sync.py admits one worker), so acks_late is safe. GraphUnavailable (graph down,
slow, model unreachable) is retried with exponential backoff; once retries run out the row just
stays pending and `drain_pending` (beat) or `manage.py graph_sync` picks it up again.
"""

from __future__ import annotations

import logging

from celery import shared_task

from memoryapp.engine import jobs
from memoryapp.engine.jobs import Job
from memoryapp.graph import sync
from memoryapp.graph.errors import GraphUnavailable

log = logging.getLogger(__name__)

RETRY = dict(
    autoretry_for=(GraphUnavailable, ConnectionError, TimeoutError),
    retry_backoff=5,  # 5 s, 10 s, 20 s ... capped below
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
    acks_late=True,
)


@shared_task(name="tasks.graph_sync.sync_memory", **RETRY)
def sync_memory(memory_id: int) -> str:
    """This memory's outcome; the user's rows waiting before it are synced with it (sync.sync_through)."""
    return sync.sync_through(memory_id)[memory_id].value


@shared_task(name="tasks.graph_sync.purge_episode", **RETRY)
def purge_episode(episode_id: str, user_id: int) -> str:
    sync.purge_episode(episode_id, user_id)
    return "purged"


@shared_task(name="tasks.graph_sync.drop_user", **RETRY)
def drop_user(user_id: int) -> str:
    """Everything the graph holds for the user (all memories purged, or the account deleted)."""
    return "dropped" if sync.drop_user(user_id) else "off"


@shared_task(name="tasks.graph_sync.drain_pending", acks_late=True)
def drain_pending(limit: int = 500) -> int:
    """Queue a sync for rows left pending (graph was down, broker was down, model was offline): one task per
    user (at most `limit`), for their newest waiting row, which syncs the older ones in batches."""
    from memoryapp.graph import get_graph
    from memoryapp.graph.conf import graph_config

    if graph_config().backend == "off":
        return 0
    try:
        graph = get_graph()
        if not sync.graph_can_write(graph):
            return 0  # offline: nothing can be built; `graph_sync` backfills once a model is set
        health = graph.health()
    except GraphUnavailable as exc:
        log.info("graph drain skipped: %s", exc.message)
        return 0
    if not health.ok:
        log.info("graph drain skipped: %s", health.detail)
        return 0
    newest: dict[int, int] = {}  # user -> their newest waiting row: its task syncs the older ones with it
    for memory_id, user_id in sync.pending_owners():
        newest[user_id] = memory_id
    ids = list(newest.values())[:limit]
    for memory_id in ids:
        jobs.enqueue(Job.SYNC_MEMORY, memory_id)  # the one seam, as every other job is queued
    return len(ids)
