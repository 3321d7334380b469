"""One memory, one episode: sync, idempotence, content changes, and offline mode (graphiti on FalkorDB)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from memoryapp.graph import GraphUnavailable, graph_enabled, search_memory_ids, sync
from memoryapp.models import GraphSyncState
from memoryapp.providers.llm import reset_llm
from tasks import graph_sync as graph_tasks
from tests.support.fixtures import configure_llm

from .conftest import make_memory

pytestmark = pytest.mark.integration


def test_it_syncs_a_memory_as_one_episode(alice, graph, graph_script):
    memory = make_memory(alice, "I live in Berlin")

    assert graph_tasks.sync_memory(memory.pk) == "synced"  # the task body, run in this process

    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.SYNCED
    assert memory.graph_synced_at is not None
    facts = graph.facts_of_user(alice.pk)
    assert [f.fact for f in facts] == ["User live in Berlin"]
    assert facts[0].episode_ids == (memory.graph_episode_id,)
    assert facts[0].valid_at == memory.valid_from  # reference_time = valid_from
    assert [mid for mid, _ in search_memory_ids(alice.pk, "Berlin", limit=5, timeout_s=10)] == [memory.pk]


def test_it_works_with_servers_that_only_speak_json_object(alice, settings, graph, graph_script, llm_server):
    settings.GRAPH_LLM_STRUCTURED_OUTPUT = "json_object"
    memory = make_memory(alice, "I live in Prague")

    assert sync.sync_memory(memory.pk) == sync.SyncOutcome.SYNCED

    formats = {r["response_format"]["type"] for r in llm_server.chat_requests()}
    assert formats == {"json_object"}
    assert [mid for mid, _ in search_memory_ids(alice.pk, "Prague", limit=5, timeout_s=10)] == [memory.pk]


def test_it_does_nothing_when_resyncing_an_unchanged_memory(alice, graph, graph_script, llm_server):
    memory = make_memory(alice, "I work at Acme")
    sync.sync_memory(memory.pk)
    calls = len(llm_server.chat_requests())

    assert sync.sync_memory(memory.pk) == sync.SyncOutcome.SKIPPED  # a redelivered task
    memory.refresh_from_db()
    episode = memory.graph_episode_id
    type(memory).objects.filter(pk=memory.pk).update(graph_sync_state=GraphSyncState.PENDING)  # e.g. "boosted"
    assert sync.sync_memory(memory.pk) == sync.SyncOutcome.UNCHANGED

    memory.refresh_from_db()
    assert memory.graph_episode_id == episode
    assert memory.graph_sync_state == GraphSyncState.SYNCED
    assert len(llm_server.chat_requests()) == calls  # no model calls
    assert len(graph.facts_of_user(alice.pk)) == 1


def test_it_replaces_the_episode_when_the_content_changes(alice, graph, graph_script):
    memory = make_memory(alice, "I drive a Volvo")
    sync.sync_memory(memory.pk)
    memory.refresh_from_db()
    old_episode = memory.graph_episode_id

    memory.content = "I drive a Tesla"
    memory.graph_sync_state = GraphSyncState.PENDING
    memory.save()
    assert sync.sync_memory(memory.pk) == sync.SyncOutcome.SYNCED

    memory.refresh_from_db()
    assert memory.graph_episode_id != old_episode
    assert [f.fact for f in graph.facts_of_user(alice.pk)] == ["User drive a Tesla"]


def test_it_skips_a_memory_claimed_by_another_worker(alice, graph, graph_script, llm_server):
    memory = make_memory(alice, "I like Rust")
    type(memory).objects.filter(pk=memory.pk).update(
        graph_sync_state=GraphSyncState.SYNCING, graph_synced_at=timezone.now()
    )

    assert sync.sync_memory(memory.pk) == sync.SyncOutcome.SKIPPED
    assert llm_server.chat_requests() == []


def test_it_leaves_memories_pending_without_a_model_then_backfills(
    alice, graph_namespace, llm_server, monkeypatch, settings
):
    settings.GRAPH_EXTRACTION = "model"  # graphiti's own extraction, asked for with no model configured
    configure_llm(monkeypatch, OPENAI_BASE_URL=None, OPENAI_API_KEY=None)
    reset_llm()
    memory = make_memory(alice, "I live in Lisbon")

    assert graph_enabled() is False  # recall does not even ask
    assert graph_tasks.sync_memory(memory.pk) == "offline"
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.PENDING
    with pytest.raises(GraphUnavailable):
        search_memory_ids(alice.pk, "Lisbon", limit=5, timeout_s=5)
    with pytest.raises(CommandError, match="offline"):
        call_command("graph_sync")
    assert graph_tasks.drain_pending() == 0

    from .graphiti_script import GraphitiScript

    llm_server.default = GraphitiScript()
    configure_llm(monkeypatch, OPENAI_BASE_URL=llm_server.url, OPENAI_API_KEY="test-key")
    reset_llm()
    from io import StringIO

    out = StringIO()
    assert graph_enabled() is True
    call_command("graph_sync", stdout=out)

    assert f"[1/1] memory {memory.pk}: synced" in out.getvalue()
    assert "done: 1 synced" in out.getvalue()
    memory.refresh_from_db()
    assert memory.graph_sync_state == GraphSyncState.SYNCED
    assert [mid for mid, _ in search_memory_ids(alice.pk, "Lisbon", limit=5, timeout_s=10)] == [memory.pk]


def test_a_recall_with_the_graph_embeds_its_query_once(alice, graph, graph_script, monkeypatch):
    from memoryapp.engine.recall.recall import recall
    from memoryapp.providers.embeddings import get_embedder

    memory = make_memory(alice, "I live in Berlin")
    assert graph_tasks.sync_memory(memory.pk) == "synced"
    # Watched, not replaced: graphiti's adapter embeds with this same (configured) embedder.
    embedder, embedded, asked = get_embedder(), [], []
    embed_one = embedder.embed_one
    monkeypatch.setattr(embedder, "embed_one", lambda text: embedded.append(text) or embed_one(text))

    class AskedGraph:  # recall's graph arrives as an argument, as graphiti's search() receives its clients
        def search(self, *args, **kwargs):
            asked.append(kwargs["query_vector"])
            return graph.search(*args, **kwargs)

    recall(alice, "Where do I live? Berlin", embedder=embedder, graph=AskedGraph())

    assert len(asked) == 1 and asked[0] is not None  # the graph was asked, with the query's vector
    assert embedded == ["Where do I live? Berlin"]  # and nothing embedded the query a second time
