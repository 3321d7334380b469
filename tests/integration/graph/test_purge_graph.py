"""Delete forever reaches the graph (graphiti on the real FalkorDB): the purged memory's episode, its
facts and the entities only it named go; purging all memories drops the user's graph."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings as django_settings

from memoryapp.celery import app
from memoryapp.engine.memories import purge, write
from memoryapp.graph.conf import graph_config
from tasks import graph_sync as graph_tasks

pytestmark = pytest.mark.integration

SECRET = "I visited Zanzibar-quokka-8812 我的秘密"


@pytest.fixture
def eager_celery():
    """Run what the purge queues in this process, so the test can look at the graph right after."""
    was = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = was


def graph_text(user_id: int) -> str:
    """Every property of every node and edge in the user's graph, as one string."""
    client = redis.Redis.from_url(django_settings.FALKORDB_URL, decode_responses=True)
    name = graph_config().graph_name(user_id)
    try:
        if name not in client.execute_command("GRAPH.LIST"):
            return ""
        nodes = client.execute_command("GRAPH.QUERY", name, "MATCH (n) RETURN properties(n)")
        edges = client.execute_command("GRAPH.QUERY", name, "MATCH ()-[r]->() RETURN properties(r)")
        return str(nodes[1]) + str(edges[1])
    finally:
        client.close()


def _synced(user, content: str):
    memory = write.add_memory(user, content).memory
    assert graph_tasks.sync_memory(memory.pk) == "synced"
    return memory


def test_it_removes_the_purged_memorys_episode_facts_and_entities(
    alice, graph, eager_celery, django_capture_on_commit_callbacks
):
    secret = _synced(alice, SECRET)
    _synced(alice, "I live in Berlin")
    assert "Zanzibar" in graph_text(alice.pk) and "秘密" in graph_text(alice.pk)

    with django_capture_on_commit_callbacks(execute=True):
        purge.purge_memory(secret)

    left = graph_text(alice.pk)
    assert "zanzibar" not in left.lower() and "秘密" not in left
    assert [f.fact for f in graph.facts_of_user(alice.pk)] == ["User live in Berlin"]


def test_purging_all_memories_drops_the_users_graph(
    alice, bob, graph, eager_celery, django_capture_on_commit_callbacks
):
    _synced(alice, SECRET)
    _synced(bob, "I live in Oslo")

    with django_capture_on_commit_callbacks(execute=True):
        purge.purge_all(alice)

    assert "zanzibar" not in graph_text(alice.pk).lower()
    assert graph.facts_of_user(alice.pk) == []
    assert [f.fact for f in graph.facts_of_user(bob.pk)] == ["User live in Oslo"]


def test_deleting_the_account_drops_the_users_graph(alice, graph, eager_celery, django_capture_on_commit_callbacks):
    _synced(alice, SECRET)
    user_id = alice.pk

    with django_capture_on_commit_callbacks(execute=True):
        purge.delete_account(alice)

    assert "zanzibar" not in graph_text(user_id).lower()
    assert graph.facts_of_user(user_id) == []
