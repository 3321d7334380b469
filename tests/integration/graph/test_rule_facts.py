"""The graph on the embedded default (no model, GRAPH_EXTRACTION=rules): memories reach `synced` with
their entities as nodes, and graph recall walks from a named entity to facts two hops away."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings as django_settings

from memoryapp.graph import GraphUnavailable, get_graph, graph_enabled, search_memory_ids
from memoryapp.models import GraphSyncState
from tasks import graph_sync as graph_tasks

from .conftest import make_memory

pytestmark = pytest.mark.integration


def entity_names(namespace: str, user_id: int) -> set[str]:
    client = redis.Redis.from_url(django_settings.FALKORDB_URL)
    try:
        rows = client.execute_command("GRAPH.QUERY", f"{namespace}_user_{user_id}", "MATCH (n:Entity) RETURN n.name")
    finally:
        client.close()
    return {(r[0].decode() if isinstance(r[0], bytes) else r[0]) for r in rows[1]}


def test_a_fresh_install_syncs_memories_with_their_entities(alice, graph_namespace, no_model):
    memory = make_memory(alice, "I had lunch with Priya Sharma at Google in Zurich")
    chinese = make_memory(alice, "我和王伟一起去了北京")

    assert graph_enabled() is True
    assert graph_tasks.sync_memory(memory.pk) == "synced"
    assert graph_tasks.sync_memory(chinese.pk) == "synced"

    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.SYNCED
    assert {"Priya Sharma", "Google", "Zurich", "王伟", "北京"} <= entity_names(graph_namespace, alice.pk)
    facts = get_graph().facts_of_user(alice.pk)
    assert {f.fact for f in facts} == {memory.content, chinese.content}
    assert all(f.valid_at == memory.valid_from for f in facts if memory.graph_episode_id in f.episode_ids)


def embedded(user, content: str):
    from memoryapp.providers.embeddings import get_embedder

    return make_memory(user, content, embedding=get_embedder().embed_one(content))


@pytest.mark.django_db(transaction=True)  # recall asks the graph from its own thread: rows must be committed
def test_graph_recall_finds_a_memory_two_hops_away_that_postgres_misses(
    alice, bob, graph_namespace, no_model, settings
):
    from memoryapp.engine.recall.config import RecallConfig
    from memoryapp.engine.recall.recall import recall
    from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY

    embedded(alice, "Priya Sharma shares a flat with Tomas Berg")
    target = embedded(alice, "Tomas Berg started a new job at Globex last spring")
    fillers = [
        "I like green tea in the morning",
        "My bike needs new brakes",
        "I am learning to bake bread",
        "The dentist appointment is on Friday",
        "I prefer window seats on trains",
        "My favourite film is Spirited Away",
        "I jog three times a week",
        "The printer at home is broken",
    ]
    for text in fillers:
        embedded(alice, text)
    embedded(bob, "Priya Sharma works at Initech")  # another user's graph is never walked
    for memory in alice.memories.order_by("valid_from", "id"):  # as queued: a task also syncs the rows before it
        assert graph_tasks.sync_memory(memory.pk) == "synced"

    question = "Who does Priya Sharma live with?"
    graph_ids = [mid for mid, _ in search_memory_ids(alice.pk, question, limit=5, timeout_s=10)]
    assert target.pk in graph_ids

    postgres = recall(alice, question, config=RECALL_POSTGRES_ONLY, k=3, record_access=False)
    assert target.pk not in [i.memory.pk for i in postgres.items]
    with_graph = RecallConfig(graph={"time_budget_ms": 5000})
    by_default = recall(alice, question, config=with_graph, k=3, record_access=False)
    assert target.pk not in [i.memory.pk for i in by_default.items]  # GRAPH_RECALL=auto: a rules graph is not asked
    settings.GRAPH_RECALL = "on"
    fused = recall(alice, question, config=with_graph, k=3, record_access=False)
    assert target.pk in [i.memory.pk for i in fused.items]


def test_purge_removes_what_only_the_deleted_memory_supported(alice, graph_namespace, no_model):
    from memoryapp.graph import sync

    zurich = make_memory(alice, "I met Priya Sharma in Zurich")
    lisbon = make_memory(alice, "Priya Sharma moved to Lisbon")
    for memory in (zurich, lisbon):
        assert graph_tasks.sync_memory(memory.pk) == "synced"
        memory.refresh_from_db()

    sync.purge_episode(zurich.graph_episode_id, alice.pk)

    assert entity_names(graph_namespace, alice.pk) == {"Priya Sharma", "Lisbon"}
    assert {f.fact for f in get_graph().facts_of_user(alice.pk)} == {lisbon.content}


def test_recall_answers_from_postgres_when_falkordb_is_down(alice, settings, graph_namespace, no_model, caplog):
    from memoryapp.engine.recall.config import RecallConfig
    from memoryapp.engine.recall.recall import recall

    settings.FALKORDB_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.GRAPH_RECALL = "on"
    memory = make_memory(alice, "Priya Sharma lives in Zurich")

    with pytest.raises(GraphUnavailable):
        graph_tasks.sync_memory(memory.pk)  # the task retries later
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.PENDING
    found = recall(alice, "Zurich", config=RecallConfig(graph={"time_budget_ms": 5000}), record_access=False)
    assert [i.memory.pk for i in found.items] == [memory.pk]
    assert found.degraded
    assert "answering from Postgres alone" in caplog.text


def test_a_superseded_memory_s_facts_end_when_it_was_superseded(alice, graph_namespace, no_model):
    from datetime import timedelta

    from django.utils import timezone

    started = timezone.now() - timedelta(days=30)
    old = make_memory(
        alice, "Priya Sharma works at Initech", valid_from=started, valid_until=started + timedelta(days=10)
    )
    assert graph_tasks.sync_memory(old.pk) == "synced"

    facts = get_graph().facts_of_user(alice.pk)
    assert facts and all(f.invalid_at == old.valid_until for f in facts)
    assert search_memory_ids(alice.pk, "Where does Priya Sharma work?", limit=5, timeout_s=10) == []
    during = started + timedelta(days=5)
    assert [
        m for m, _ in search_memory_ids(alice.pk, "Where does Priya Sharma work?", at=during, limit=5, timeout_s=10)
    ] == [old.pk]
