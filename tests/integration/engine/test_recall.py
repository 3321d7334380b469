"""Hybrid recall on the real Postgres: Chinese and English, keywords and paraphrases, scoping."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memoryapp.engine.memories import write
from memoryapp.engine.recall import access
from memoryapp.engine.recall.recall import recall
from memoryapp.engine.recall.recipes import RECALL_CHAT, RECALL_POSTGRES_ONLY
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db

TOP = RECALL_POSTGRES_ONLY.model_copy(update={"limit": 1})

MEMORIES = [
    ("我喜欢喝乌龙茶，不喜欢咖啡", "preference"),
    ("我在上海的一家银行工作", "fact"),
    ("我正在学习弹钢琴", "goal"),
    ("I prefer dark mode in every editor", "preference"),
    ("My daughter Emma is allergic to peanuts", "fact"),
    ("I am training for the Berlin marathon in September", "goal"),
]


@pytest.fixture
def memories(alice):
    return {content: write.add_memory(alice, content, kind=kind).memory for content, kind in MEMORIES}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("乌龙茶", "我喜欢喝乌龙茶，不喜欢咖啡"),  # Chinese keyword
        ("我平时爱喝什么茶？", "我喜欢喝乌龙茶，不喜欢咖啡"),  # Chinese paraphrase
        ("银行", "我在上海的一家银行工作"),
        ("我的工作单位在哪里", "我在上海的一家银行工作"),
        ("钢琴", "我正在学习弹钢琴"),
        ("dark mode", "I prefer dark mode in every editor"),  # English keyword
        ("which colour theme do I like for coding?", "I prefer dark mode in every editor"),  # paraphrase
        ("food my kid cannot eat", "My daughter Emma is allergic to peanuts"),
        ("running race I'm preparing for", "I am training for the Berlin marathon in September"),
    ],
)
def test_it_finds_the_memory_by_keyword_and_by_paraphrase(memories, alice, query, expected):
    found = recall(alice, query, config=TOP)
    assert [m.content for m in found.memories] == [expected]


def test_it_tolerates_a_typo_through_trigrams(memories, alice):
    found = recall(alice, "maraton", config=TOP)
    assert found.memories[0].content.startswith("I am training for the Berlin")
    assert "trigram" in found.items[0].ranks


def test_it_never_returns_another_users_memory(memories, alice, bob):
    write.add_memory(bob, "I prefer light mode in every editor")
    for query in ("editor theme", "light mode", "乌龙茶"):
        found = recall(bob, query, config=RECALL_POSTGRES_ONLY)
        assert all(m.user_id == bob.pk for m in found.memories)
    assert [m.content for m in recall(alice, "light mode editor", config=TOP).memories] != [
        "I prefer light mode in every editor"
    ]


def test_it_keeps_unrelated_memories_out_of_the_chat_prompt(memories, alice):
    assert recall(alice, "what is the capital of Peru?", config=RECALL_CHAT).memories == []


def test_it_filters_by_kind(memories, alice):
    found = recall(alice, "what do I like", config=RECALL_POSTGRES_ONLY, kinds=["goal"])
    assert found.memories and all(m.kind == "goal" for m in found.memories)


def test_it_reports_component_scores(memories, alice):
    item = recall(alice, "dark mode", config=TOP).items[0]
    assert 0 < item.similarity <= 1 and 0 < item.cosine <= 1 and 0 < item.recency <= 1
    assert item.ranks.get("vector") == 1 and item.ranks.get("full_text") == 1
    weights = TOP.scoring
    assert item.score == pytest.approx(
        weights.similarity * item.similarity + weights.importance * item.importance + weights.recency * item.recency
    )


def test_it_counts_accesses_off_the_hot_path_in_batches(memories, alice):
    target = memories["I prefer dark mode in every editor"]
    access.wait_for_pending_notes()  # notes of earlier tests reach Redis...
    access.flush_access()  # ...and are flushed: start from an empty batch
    recall(alice, "dark mode", config=TOP)
    recall(alice, "dark mode editor", config=TOP)
    target.refresh_from_db()
    assert target.access_count == 0  # not written by recall itself
    access.wait_for_pending_notes()
    assert access.flush_access() == 1
    target.refresh_from_db()
    assert target.access_count == 2 and target.last_accessed_at is not None
    assert target.events.filter(action="accessed").count() == 1
    assert Memory.objects.exclude(pk=target.pk).filter(access_count__gt=0).count() == 0


def test_it_searches_with_the_configs_ef_search_and_leaves_the_connections_default(alice):
    write.add_memory(alice, "I keep bees on the roof")
    wide = RECALL_POSTGRES_ONLY.model_copy(
        update={"vector": RECALL_POSTGRES_ONLY.vector.model_copy(update={"ef_search": 200})}
    )
    with CaptureQueriesContext(connection) as queries:
        found = recall(alice, "bees", config=wide)
    assert [item.memory.content for item in found.items] == ["I keep bees on the roof"]
    assert any("set_config('hnsw.ef_search', '200'" in q["sql"] for q in queries.captured_queries)
    with connection.cursor() as cursor:
        cursor.execute("SHOW hnsw.ef_search")
        assert cursor.fetchone()[0] == "80"


def test_a_short_query_scans_trigrams_with_the_configs_threshold(alice):
    write.add_memory(alice, "Bought a new saxophone")
    default = recall(alice, "sacsofoan", config=RECALL_POSTGRES_ONLY)
    assert "trigram" not in {source for item in default.items for source in item.ranks}  # under 0.3
    loose = RECALL_POSTGRES_ONLY.model_copy(
        update={
            "trigram": RECALL_POSTGRES_ONLY.trigram.model_copy(update={"min_similarity": 0.1}),
            "vector": RECALL_POSTGRES_ONLY.vector.model_copy(update={"enabled": False}),
        }
    )
    found = recall(alice, "sacsofoan", config=loose)
    assert [item.memory.content for item in found.items] == ["Bought a new saxophone"]
    assert "trigram" in found.items[0].ranks
    with connection.cursor() as cursor:
        cursor.execute("SHOW pg_trgm.word_similarity_threshold")
        assert cursor.fetchone()[0] == "0.3"
