"""Time each part of recall's statement, and the proposed cheaper forms, at one size (default 100k).

    python -m bench.sqlparts [--size 100000] [--queries 40] [--json OUT]

Parts: the HNSW vector CTE, full text as today (OR of terms) and AND-first (OR only when AND finds
fewer than the limit), trigram as today (`<%` over the user's rows) and as a re-ranker over the vector
and full-text candidates only. SQL mirrors memoryapp/engine/recall/retrievers.py; it measures, it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np

from . import runtime, synthetic
from .metrics import latency_summary

WHERE = (
    "m.user_id = %(user)s AND m.status = 'active' AND m.valid_from <= now() "
    "AND (m.valid_until IS NULL OR m.valid_until > now())"
)
VEC = f"""SELECT m.id FROM memoryapp_memory m WHERE {WHERE} AND m.embedding IS NOT NULL
          ORDER BY m.embedding <=> %(qv)s::halfvec LIMIT 40"""
FT = f"""SELECT m.id FROM memoryapp_memory m, to_tsquery('memoryapp_mixed', %(tsq)s) AS q(tsq)
         WHERE {WHERE} AND m.search_vector @@ q.tsq ORDER BY ts_rank_cd(m.search_vector, q.tsq) DESC, m.id LIMIT 40"""
TRI = f"""SELECT m.id FROM memoryapp_memory m WHERE {WHERE} AND %(qt)s <%% m.content
          ORDER BY word_similarity(%(qt)s, m.content) DESC, m.id LIMIT 20"""
TRI_RERANK = """SELECT m.id, word_similarity(%(qt)s, m.content) FROM memoryapp_memory m WHERE m.id = ANY(%(ids)s)"""


def _run(cursor, sql: str, params: dict) -> tuple[list, float]:
    started = time.perf_counter()
    cursor.execute(sql, params)
    rows = cursor.fetchall()
    return rows, (time.perf_counter() - started) * 1000


def measure(user_id: int, queries: list[str], vectors: np.ndarray) -> dict:
    from django.db import connection

    from memoryapp.engine.recall.retrievers import tsquery_text

    times: dict[str, list[float]] = {k: [] for k in ("vec", "ft_or", "ft_and_first", "tri", "tri_rerank")}
    with connection.cursor() as cursor:
        for q, v in zip(queries, vectors):
            params = {"user": user_id, "qv": str(v.tolist()), "qt": q}
            vec, ms = _run(cursor, VEC, params)
            times["vec"].append(ms)
            ors = tsquery_text(q)
            ft, ms = _run(cursor, FT, {**params, "tsq": ors}) if ors else ([], 0.0)
            times["ft_or"].append(ms)
            if ors:
                first, ms_and = _run(cursor, FT, {**params, "tsq": ors.replace(" | ", " & ")})
                if len(first) < 40:
                    ms_and += _run(cursor, FT, {**params, "tsq": ors})[1]
                times["ft_and_first"].append(ms_and)
            times["tri"].append(_run(cursor, TRI, params)[1])
            ids = list({row[0] for row in vec + ft})
            times["tri_rerank"].append(_run(cursor, TRI_RERANK, {**params, "ids": ids})[1])
    return {name: latency_summary(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog="python -m bench.sqlparts")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--json", type=Path, default=runtime.REPO / "bench" / "results" / "sqlparts.json")
    args = parser.parse_args(argv)
    runtime.setup_django()
    from django.conf import settings
    from django.db import connection

    from .ingest import embed_cached
    from .scale import write

    cache = Path(settings.VAR_DIR) / "embcache"
    pool = synthetic.base_sentences(3000)
    pool_vectors = np.asarray(embed_cached(pool, cache)[0], dtype=np.float32)
    queries = synthetic.queries(200)[: args.queries]
    vectors = np.asarray(embed_cached(synthetic.queries(200), cache)[0], dtype=np.float32)[: args.queries]
    user = runtime.fresh_user("sqlparts")
    for chunk in range(0, args.size, 10_000):
        write(user.pk, synthetic.memories(min(10_000, args.size - chunk), pool, start=chunk), pool_vectors)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memoryapp_memory")
    measure(user.pk, queries[:5], vectors[:5])  # warm-up
    result = {"size": args.size, "queries": len(queries), "parts_ms": measure(user.pk, queries, vectors)}
    user.delete()
    runtime.write_result(args.json, result, "bench.sqlparts", argv)
    print(json.dumps(result["parts_ms"], indent=1))


if __name__ == "__main__":
    main()
