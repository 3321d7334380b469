"""The walk's pure parts (memoryapp/graph/walk.py): which entities are hubs, and how facts become scores."""

from __future__ import annotations

from memoryapp.graph.walk import EntityTable, score_facts


def table() -> EntityTable:
    # 200 memories: the user's node, Anna on 40 of them, Tomas on 2, Globex on 1.
    return EntityTable(
        uuid_of={"Anna": "anna", "Tomas Berg": "tomas", "Globex": "globex"},
        mentions={"user": 150, "anna": 40, "tomas": 2, "globex": 1},
        memories=200,
        user_uuid="user",
    )


def test_it_calls_the_user_and_an_entity_most_memories_name_hubs():
    t = table()
    assert [u for u in ("user", "anna", "tomas", "globex") if t.is_hub(u)] == ["user", "anna"]
    assert t.weight("globex") > t.weight("tomas") > t.weight("anna")


def test_a_small_graph_has_no_hub_but_the_user():
    t = EntityTable(uuid_of={"Anna": "anna"}, mentions={"user": 5, "anna": 6}, memories=10, user_uuid="user")
    assert not t.is_hub("anna")
    assert t.is_hub("user")


def test_a_memory_on_two_named_rare_entities_outranks_a_closer_one_on_either():
    records = [
        {"episodes": ["both"], "cos": 0.30, "origin": "tomas", "weight": 4.0, "hop": 1},
        {"episodes": ["both"], "cos": 0.30, "origin": "globex", "weight": 5.0, "hop": 1},
        {"episodes": ["tomas-only"], "cos": 0.60, "origin": "tomas", "weight": 4.0, "hop": 1},
        {"episodes": ["two-hops"], "cos": 0.90, "origin": "", "weight": 0.0, "hop": 2},
    ]
    ranked = [episode for episode, _ in score_facts(records)]
    assert ranked == ["both", "tomas-only", "two-hops"]


def test_a_fact_counts_its_named_entity_once_however_many_edges_carry_it():
    records = [{"episodes": ["a"], "cos": 0.5, "origin": "tomas", "weight": 4.0, "hop": 1}] * 3
    assert score_facts(records) == [("a", 1.5)]
