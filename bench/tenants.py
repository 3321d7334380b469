"""Many users in one table: `python -m bench.scale --tenants` (issue #35).

    python -m bench.scale --tenants [--tenant-rows 1000000] [--users 2000] [--large-user 100000]
                          [--queries 300] [--reload] [--json bench/results/scale_tenants.json]

`--tenant-rows` memories spread over `--users` users (log-normal sizes: bench/tenant_load.py), plus one
user with `--large-user`, loaded by COPY into their own embedded Postgres (var/bench-tenants, kept: a
rerun with the same shape reuses it; `--reload` loads again). For random small users (at most
`--small-max` memories), random mid-sized ones and the large one: recall p50/p95 with and without the
query embedding (RECALL_POSTGRES_ONLY), the share of queries whose top-10 ids equal those of the same
recall with the vector search forced exact (index scans off: the user's rows by the btree, sorted by
distance), the memories page's list and search; EXPLAIN ANALYZE of the recall statement; each index's
build time and size; bytes per memory on disk.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from . import runtime, synthetic
from .metrics import latency_summary

logger = logging.getLogger("bench.scale.tenants")
VAR_DIR = runtime.REPO / "var" / "bench-tenants"


def add_arguments(parser) -> None:
    group = parser.add_argument_group("many users (--tenants)")
    group.add_argument("--tenants", action="store_true", help="many users in one table instead of one growing user")
    group.add_argument(
        "--tenant-rows", type=int, default=1_000_000, help="memories over all the users but the large one"
    )
    group.add_argument("--users", type=int, default=2000)
    group.add_argument("--large-user", type=int, default=100_000, help="memories of the one large user (0: none)")
    group.add_argument("--small-max", type=int, default=1000, help="a small user has at most this many memories")
    group.add_argument("--sample-users", type=int, default=60, help="random users asked, per group")
    group.add_argument(
        "--mid-queries", type=int, default=80, help="queries for mid-sized users (their exact arm is slow)"
    )
    group.add_argument("--large-queries", type=int, default=40)
    group.add_argument("--reload", action="store_true", help="load the table again even if this shape is loaded")
    group.add_argument("--maintenance-work-mem", default="6GB", help="for the index builds")


def same_top(found: list[int], exact: list[int], k: int = 10) -> bool:
    """Whether the first k ids are those of the exact search, in its order (final ties are broken by id
    in recall's scoring, so equal evidence gives an equal order)."""
    return found[:k] == exact[:k]


@contextmanager
def exact_vector_search():
    """The vector retriever exact for the queries inside: with index scans off the planner cannot walk
    the HNSW graph (it has no bitmap form), so it reads the user's rows through the btree and sorts
    them by distance. Full text and trigram use GIN through bitmap scans as before."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET enable_indexscan = off")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET enable_indexscan")


# --- loading -----------------------------------------------------------------------------------------


def _load_record_path() -> Path:
    from django.conf import settings

    return Path(settings.VAR_DIR) / "tenants_load.json"


def load(args, pool: list[str], pool_vectors: np.ndarray) -> dict:
    """Load the dataset unless this shape is loaded already; returns what the load measured."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from . import tenant_load

    User = get_user_model()
    tag = tenant_load.dataset_tag(args.tenant_rows, args.users, args.large_user)
    record_path = _load_record_path()
    expected = args.tenant_rows + args.large_user
    if not args.reload and record_path.exists():
        record = json.loads(record_path.read_text())
        if record.get("tag") == tag:
            logger.info("reusing the loaded dataset %s (%d rows)", tag, expected)
            return {**record, "reused": True}
    started = time.perf_counter()
    with connection.cursor() as cursor:  # this database holds the bench's dataset only
        indexes = tenant_load.secondary_indexes(cursor)
        saved = record_path.parent / "tenants_indexes.json"
        if saved.exists():  # an interrupted load left some dropped: the first definitions stand
            indexes = {**json.loads(saved.read_text()), **indexes}
        runtime.write_state(saved, indexes)
        cursor.execute("TRUNCATE memoryapp_memory CASCADE")
        tenant_load.drop_indexes(cursor, indexes)
    User.objects.filter(username__startswith="tenants-").delete()
    sizes = tenant_load.tenant_sizes(args.users, args.tenant_rows)
    users = User.objects.bulk_create([User(username=f"{tag}-{n:05d}") for n in range(args.users)])
    plan = [(user.pk, size) for user, size in zip(users, sizes)]
    if args.large_user:
        plan.append((User.objects.create(username=f"{tag}-large").pk, args.large_user))
    copy_s = tenant_load.copy_users(connection.connection, plan, pool, pool_vectors)
    with connection.cursor() as cursor:
        builds = tenant_load.build_indexes(cursor, indexes, args.maintenance_work_mem)
        vacuum_started = time.perf_counter()
        cursor.execute("VACUUM ANALYZE memoryapp_memory")
        vacuum_s = time.perf_counter() - vacuum_started
    record = {
        "tag": tag,
        "rows": expected,
        "users": args.users + bool(args.large_user),
        "copy_s": round(copy_s, 1),
        "copy_rows_per_s": round(expected / copy_s),
        "index_builds": builds,
        "vacuum_analyze_s": round(vacuum_s, 1),
        "maintenance_work_mem": args.maintenance_work_mem,
        "total_load_s": round(time.perf_counter() - started, 1),
        "loadavg_after_load": [round(x, 2) for x in os.getloadavg()],
    }
    runtime.write_state(record_path, record)
    return {**record, "reused": False}


def storage(rows: int) -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("""SELECT pg_relation_size('memoryapp_memory'), pg_table_size('memoryapp_memory'),
                                 pg_indexes_size('memoryapp_memory'), pg_total_relation_size('memoryapp_memory')""")
        heap, table, indexes, total = cursor.fetchone()
    return {
        "heap_bytes": heap,
        "table_with_toast_bytes": table,
        "indexes_bytes": indexes,
        "total_bytes": total,
        "bytes_per_memory": round(total / rows) if rows else None,
        "table_bytes_per_memory": round(table / rows) if rows else None,
    }


def server_facts() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        version = cursor.fetchone()[0]
        facts = {"pgvector": version}
        for name in (
            "server_version",
            "shared_buffers",
            "work_mem",
            "hnsw.ef_search",
            "hnsw.iterative_scan",
            "hnsw.max_scan_tuples",
            "effective_cache_size",
            "random_page_cost",
        ):
            cursor.execute("SELECT current_setting(%s, true)", [name])
            facts[name] = cursor.fetchone()[0]
    return facts


# --- measuring ---------------------------------------------------------------------------------------


def user_groups(args) -> dict[str, list[tuple[int, int]]]:
    """(user id, active memories) of random small users, random mid-sized ones, and the large one."""
    from django.contrib.auth import get_user_model
    from django.db.models import Count, Q

    from . import tenant_load

    tag = tenant_load.dataset_tag(args.tenant_rows, args.users, args.large_user)
    users = list(
        get_user_model()
        .objects.filter(username__startswith=tag)
        .annotate(n=Count("memories", filter=Q(memories__status="active")))
        .values_list("pk", "n", "username")
    )
    rng = random.Random(41)
    small = [(pk, n) for pk, n, name in users if n <= args.small_max and not name.endswith("-large")]
    mid = [(pk, n) for pk, n, name in users if n > args.small_max and not name.endswith("-large")]
    groups = {
        "small_user": rng.sample(small, min(args.sample_users, len(small))),
        "mid_user": rng.sample(mid, min(args.sample_users, len(mid))),
    }
    large = [(pk, n) for pk, n, name in users if name.endswith("-large")]
    if large:
        groups["large_user"] = large
    return groups


def measure_group(
    members: list[tuple[int, int]],
    queries: list[str],
    vectors: np.ndarray,
    short: list[str],
    short_vectors: np.ndarray,
    count: int,
) -> dict:
    """`count` queries over the members in turn; per query the arms take turns (load hits them alike)."""
    from memoryapp.engine.recall.recall import recall
    from memoryapp.engine.recall.recipes import RECALL_MEMORIES_PAGE, RECALL_POSTGRES_ONLY
    from memoryapp.models import Memory, MemoryStatus

    times = {
        "recall_ms": [],
        "recall_with_embedding_ms": [],
        "page_list_ms": [],
        "page_search_ms": [],
        "recall_statement_ms": [],
    }  # recall's one Postgres statement alone (the rest is Python)
    same, same_set = [], []
    for n in range(count + 3):  # the first 3 warm the caches and the connection and are not kept
        user_id, _ = members[n % len(members)]
        q, v = queries[n % len(queries)], vectors[n % len(vectors)].tolist()
        s, sv = short[n % len(short)], short_vectors[n % len(short_vectors)].tolist()
        started = time.perf_counter()
        found = recall(user_id, q, config=RECALL_POSTGRES_ONLY, query_vector=v, record_access=False)
        recall_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        recall(user_id, q, config=RECALL_POSTGRES_ONLY, record_access=False)
        embed_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        list(Memory.objects.filter(user_id=user_id, status=MemoryStatus.ACTIVE).order_by("-created_at", "-id")[:20])
        list_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        recall(user_id, s, config=RECALL_MEMORIES_PAGE, query_vector=sv, record_access=False)
        search_ms = (time.perf_counter() - started) * 1000
        with exact_vector_search():
            exact = recall(user_id, q, config=RECALL_POSTGRES_ONLY, query_vector=v, record_access=False)
        if n < 3:
            continue
        statement_ms = found.timings_ms["postgres"]
        for key, value in zip(times, (recall_ms, embed_ms, list_ms, search_ms, statement_ms)):
            times[key].append(value)
        ids, exact_ids = [m.pk for m in found.memories], [m.pk for m in exact.memories]
        same.append(same_top(ids, exact_ids))
        same_set.append(set(ids[:10]) == set(exact_ids[:10]))
    sizes = sorted(n for _, n in members)
    return {
        **{key: latency_summary(values) for key, values in times.items()},
        "exact_top10_share": round(sum(same) / len(same), 4),
        "exact_top10_set_share": round(sum(same_set) / len(same_set), 4),
        "queries": len(same),
        "users": len(members),
        "memories_per_user": {"min": sizes[0], "median": sizes[len(sizes) // 2], "max": sizes[-1]},
    }


def explain_user(user_id: int, query: str, vector: list[float]) -> list[str]:
    from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY

    from .plans import explain

    return explain(user_id, query, vector, RECALL_POSTGRES_ONLY).splitlines()


def run(args) -> dict:
    os.environ.setdefault("MEMORYAPP_VAR_DIR", str(VAR_DIR))
    # The recipe for a table of many users (README: DB_RANDOM_PAGE_COST); `DB_RANDOM_PAGE_COST=0` measures without.
    os.environ.setdefault("DB_RANDOM_PAGE_COST", "1.1")
    runtime.setup_django()
    from django.conf import settings

    pool, pool_vectors, queries, vectors, short, short_vectors = synthetic.embedded_inputs(
        args.pool, args.queries, Path(settings.VAR_DIR) / "embcache"
    )

    loaded = load(args, pool, pool_vectors)
    groups = user_groups(args)
    result: dict = {
        "rows": loaded["rows"],
        "users": loaded["users"],
        "load": loaded,
        "server": server_facts(),
        "storage": storage(loaded["rows"]),
    }
    for name, members in groups.items():
        count = {"large_user": args.large_queries, "mid_user": args.mid_queries}.get(name, args.queries)
        result[name] = measure_group(members, queries, vectors, short, short_vectors, count)
        logger.info("%s: %s", name, json.dumps(result[name]))
    result["explain"] = {
        name: explain_user(members[0][0], queries[0], vectors[0].tolist()) for name, members in groups.items()
    }
    return {
        "tenants": result,
        "queries": args.queries,
        "pool": args.pool,
        "vector_note": "pool vectors with Gaussian noise sigma 0.02 per dimension drawn per user slice, renormalised",
    }


def summary_lines(result: dict) -> list[str]:
    t = result["tenants"]
    lines = [f"{t['rows']} memories, {t['users']} users; {t['storage']['bytes_per_memory']} bytes per memory on disk"]
    for name in ("small_user", "mid_user", "large_user"):
        if name in t:
            g = t[name]
            lines.append(
                f"{name}: recall p50={g['recall_ms']['p50']} p95={g['recall_ms']['p95']} ms "
                f"(with embedding p95={g['recall_with_embedding_ms']['p95']}), exact top-10 "
                f"{g['exact_top10_share']:.3f}, list p95={g['page_list_ms']['p95']}, "
                f"search p95={g['page_search_ms']['p95']} ms"
            )
    return lines
