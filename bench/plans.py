"""The one Postgres statement recall runs, caught as it runs, and its plan: for bench.scale and its
many-users run (bench.tenants) alike."""

from __future__ import annotations

import re


def capture_recall_sql(user, query: str, vector: list[float], config) -> tuple[str, object]:
    """The one Postgres statement recall runs (retrievers.postgres_search), with its parameters."""
    from django.db import connection

    from memoryapp.engine.recall.recall import recall

    seen: list[tuple[str, object]] = []

    def wrapper(execute, sql, params, many, context):
        if "WITH" in sql and "hits(src" in sql:
            seen.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        recall(user, query, config=config, query_vector=vector, record_access=False)
    return seen[0]


def explain(user, query: str, vector: list[float], config) -> str:
    from django.db import connection

    sql, params = capture_recall_sql(user, query, vector, config)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, TIMING) " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return re.sub(r"'\[[^\]]{200,}\]'", "'[query vector]'", plan)  # 384 floats per line hide the plan
