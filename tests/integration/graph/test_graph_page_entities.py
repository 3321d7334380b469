"""The memory graph page with the graph tier on: the entities graphiti found join the memories that mention
them; with the graph down, the page's data is complete without them."""

from __future__ import annotations

import pytest

from memoryapp.engine import memory_map
from tasks import graph_sync as graph_tasks

from .conftest import make_memory

pytestmark = pytest.mark.integration


def test_it_links_each_entity_to_the_memories_that_mention_it(alice, graph, graph_script, monkeypatch):
    monkeypatch.setattr(memory_map, "GRAPH_BUDGET_S", 20.0)  # a busy test machine; the page allows 0.4 s
    lives, loves = make_memory(alice, "I live in Berlin"), make_memory(alice, "I love Berlin")
    for memory in (lives, loves):
        assert graph_tasks.sync_memory(memory.pk) == "synced"

    data = memory_map.build(alice)

    assert data["graph"] == "on"
    entities = {e["name"]: e for e in data["entities"]}
    assert set(entities) == {"Berlin"}  # the speaker "User" is every fact's subject: not drawn
    berlin = entities["Berlin"]
    assert {link[0] for link in data["links"] if link[1] == berlin["id"]} == {f"m{lives.pk}", f"m{loves.pk}"}
    assert sorted(f["text"] for f in berlin["facts"]) == ["User live in Berlin", "User love Berlin"]


def test_a_graph_that_is_down_leaves_the_rest_drawn(alice, settings, graph_namespace, graph_script):
    settings.FALKORDB_URL = "redis://127.0.0.1:1/0"
    make_memory(alice, "I live in Berlin")
    make_memory(alice, "I teach piano in Berlin")

    data = memory_map.build(alice)

    assert data["graph"] == "unavailable" and data["entities"] == []
    assert len(data["memories"]) == 2 and [n["name"] for n in data["names"]] == ["Berlin"]
