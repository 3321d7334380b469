"""What keeps a small user's recall cheap in a table of many users (bench.scale --tenants, issue #35):
random reads priced as on SSD where the operator sets DB_RANDOM_PAGE_COST (else Postgres intersects the
user's rows with a common word's global GIN match list), and an index on the user among the memories that have cue vectors (else the cue
branch reads every row of a user that has none)."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def _page_cost_after_session_setup() -> float:
    from memoryapp.engine.recall.session import session_sql

    with connection.cursor() as cursor:
        cursor.execute(session_sql())
        cursor.execute("SHOW random_page_cost")
        return float(cursor.fetchone()[0])


def test_it_prices_random_reads_as_an_operator_sets_them(settings):
    settings.DB_RANDOM_PAGE_COST = 1.1
    try:
        assert _page_cost_after_session_setup() == pytest.approx(1.1)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET random_page_cost")


def test_it_leaves_postgres_own_price_by_default():
    assert _page_cost_after_session_setup() == pytest.approx(4.0)


def test_it_indexes_each_users_memories_that_have_cue_vectors():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'memory_user_cued'")
        row = cursor.fetchone()
    assert row is not None
    assert "(user_id)" in row[0] and "cue_embedding IS NOT NULL" in row[0]


def _trigram_branches(user, query: str, config) -> dict[str, int]:
    """Loops of each branch of recall's trigram scan (EXPLAIN ANALYZE of the statement recall runs):
    'index' reads the trigram index (`<%`), 'rows' checks each of the user's rows."""
    import json

    from memoryapp.engine.recall.recall import recall

    seen = []

    def capture(execute, sql, params, many, context):
        if "hits(src" in sql:
            seen.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        found = recall(user, query, config=config, record_access=False)
    sql, params = seen[0]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)
    loops: dict[str, int] = {}

    def walk(node):
        text = json.dumps({k: v for k, v in node.items() if k != "Plans"})
        if "Index Cond" in node and "<%" in text:
            loops["index"] = loops.get("index", 0) + node["Actual Loops"]
        if "word_similarity" in node.get("Filter", "") and ">=" in node.get("Filter", ""):
            loops["rows"] = loops.get("rows", 0) + node["Actual Loops"]
        if "<%" in node.get("Filter", "") or "<%" in node.get("Recheck Cond", ""):
            loops["index"] = loops.get("index", 0) + node["Actual Loops"]
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    return {"found": [m.content for m in found.memories], **loops}


def test_a_small_users_short_search_checks_its_own_rows_not_the_global_trigram_index(alice, bob):
    from memoryapp.engine.memories import write
    from memoryapp.engine.recall.recipes import RECALL_MEMORIES_PAGE

    write.add_memory(alice, "I bought a road bike last spring")
    for n in range(30):
        write.add_memory(bob, f"Bob rides his road bike to work, day {n}")
    branches = _trigram_branches(alice, "road bke", RECALL_MEMORIES_PAGE)
    assert branches["found"] == ["I bought a road bike last spring"]
    assert branches.get("rows", 0) >= 1 and branches.get("index", 0) == 0


def test_a_large_users_short_search_still_reads_the_trigram_index(alice):
    from memoryapp.engine.memories import write
    from memoryapp.engine.recall.recipes import RECALL_MEMORIES_PAGE

    write.add_memory(alice, "I bought a road bike last spring")
    write.add_memory(alice, "I like green tea")
    large = RECALL_MEMORIES_PAGE.model_copy(
        update={"trigram": RECALL_MEMORIES_PAGE.trigram.model_copy(update={"row_check_below": 1})}
    )  # alice counts as large here
    branches = _trigram_branches(alice, "road bke", large)
    assert "I bought a road bike last spring" in branches["found"]
    assert branches.get("index", 0) >= 1 and branches.get("rows", 0) == 0
