"""A batch sync (the task, graph_sync, --rebuild) writes the same graph as syncing one memory at a time: the
same entities (a name the batch meets twice is one node, however it is spelled), facts, mentions and
validity windows."""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis
from django.conf import settings as django_settings
from django.utils import timezone

from memoryapp.graph import sync
from memoryapp.models import GraphSyncState, Memory

from .conftest import make_memory

pytestmark = pytest.mark.integration

STARTED = timezone.now() - timedelta(days=60)
# Oldest first. Later memories name earlier entities another way ("Priya", PostgreSQL, ByteDance), which
# resolve to the nodes the earlier memories created only if the batch knows its own new entities.
MEMORIES = [
    ("Priya Sharma works at Initech", 0, 20),  # superseded on day 20
    ("我和王伟在字节跳动开会", 2, None),
    ("Priya moved the billing service to Postgres", 5, None),
    ("王伟说ByteDance在北京的办公室很大", 8, None),
    ("We upgraded PostgreSQL and Priya wrote the runbook", 12, None),
    ("I like green tea", 15, None),
    ("Priya Sharma works at Globex now", 20, None),
]


def write(user) -> list[Memory]:
    return [
        make_memory(
            user,
            text,
            valid_from=STARTED + timedelta(days=start),
            valid_until=STARTED + timedelta(days=end) if end is not None else None,
        )
        for text, start, end in MEMORIES
    ]


def query(graph: str, cypher: str) -> list[tuple]:
    client = redis.Redis.from_url(django_settings.FALKORDB_URL, decode_responses=True)
    try:
        return [tuple(row) for row in client.execute_command("GRAPH.QUERY", graph, cypher)[1]]
    finally:
        client.close()


def graph_of(namespace: str, user) -> dict:
    """The user's graph by names and texts (uuids and write times differ between two graphs)."""
    name = f"{namespace}_user_{user.pk}"
    return {
        "entities": sorted(query(name, "MATCH (n:Entity) RETURN n.name, labels(n)")),
        "facts": sorted(
            query(
                name,
                "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) "
                "RETURN a.name, b.name, r.fact, r.valid_at, r.invalid_at, r.memoryapp_invalidated",
            )
        ),
        "mentions": sorted(query(name, "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) RETURN e.content, n.name")),
        "episodes": sorted(query(name, "MATCH (e:Episodic) RETURN e.content, e.valid_at")),
        "fact_vectors": query(name, "MATCH ()-[r:RELATES_TO]->() WHERE r.fact_embedding IS NULL RETURN count(r)"),
    }


def test_a_batch_writes_the_same_graph_as_one_memory_at_a_time(alice, bob, graph_namespace, no_model):
    one_by_one, batch = write(alice), write(bob)

    for memory in one_by_one:
        assert sync.sync_memory(memory.pk) == sync.SyncOutcome.SYNCED
    outcomes = sync.sync_batch([memory.pk for memory in batch])

    assert set(outcomes.values()) == {sync.SyncOutcome.SYNCED}
    assert all(
        m.graph_sync_state == GraphSyncState.SYNCED and m.graph_episode_id for m in Memory.objects.filter(user=bob)
    )
    expected, got = graph_of(graph_namespace, alice), graph_of(graph_namespace, bob)
    assert got == expected
    names = [name for name, _ in got["entities"]]
    assert len(names) == len(set(names))  # no entity twice
    assert {"Priya Sharma", "Postgres", "字节跳动", "王伟", "Initech", "Globex"} <= set(names)
    assert "Priya" not in names and "PostgreSQL" not in names and "ByteDance" not in names
    ended = [fact for fact in got["facts"] if fact[2] == "Priya Sharma works at Initech"]
    assert ended and all(fact[4] is not None and fact[5] for fact in ended)  # superseded: its facts end


def test_the_task_syncs_the_rows_waiting_before_its_memory_and_no_later_ones(alice, graph_namespace, no_model):
    from tasks import graph_sync as graph_tasks

    memories = write(alice)

    assert graph_tasks.sync_memory(memories[4].pk) == "synced"

    states = dict(Memory.objects.filter(user=alice).values_list("id", "graph_sync_state"))
    assert [states[m.pk] for m in memories] == [GraphSyncState.SYNCED] * 5 + [GraphSyncState.PENDING] * 2
    assert graph_tasks.sync_memory(memories[2].pk) == "skipped"  # a later task for a row already synced
