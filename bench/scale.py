"""Latency at scale: one user with 1k, 10k, 100k synthetic memories.

    python -m bench.scale [--sizes 1000 10000 100000] [--queries 200] [--json OUT] [--plot PNG] [--explain]
                          [--graph on off]   (graph sync and recall with/without it, at sizes up to 1,000)
    python -m bench.scale --tenants ...   many users in one table (bench/tenants.py; scale_tenants.json)

The user grows from size to size. Per size: recall p50/p95 excluding the query embedding
(RECALL_POSTGRES_ONLY, query_vector= given), the memories-page list (first 20 by -created_at) and
search (RECALL_MEMORIES_PAGE), and write throughput with precomputed vectors; write throughput with
embedding is measured on a small sample. Vectors reuse an embedded pool (see bench/synthetic.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np

from . import graph as graph_bench
from . import runtime, synthetic, tenants
from .metrics import latency_summary
from .plans import explain
from .plots import plot_scale, plot_tenants

logger = logging.getLogger("bench.scale")
RESULTS = runtime.REPO / "bench" / "results"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--budget", type=float, default=60, help="seconds per latency series (>= 20 calls)")
    parser.add_argument("--pool", type=int, default=3000, help="base sentences embedded once")
    parser.add_argument("--embed-sample", type=int, default=128, help="memories written with embedding")
    parser.add_argument(
        "--json", type=Path, help="default bench/results/scale.json (scale_tenants.json with --tenants)"
    )
    parser.add_argument("--plot", type=Path, help="also draw latency against size here (PNG; needs matplotlib)")
    parser.add_argument("--plot-only", action="store_true", help="redraw the PNG from --json, run nothing")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE the recall SQL at the largest size")
    graph_bench.add_argument(parser)
    parser.add_argument(
        "--variants",
        nargs="*",
        default=[],
        help="recall config variants (bench/variants.py) timed beside the default, interleaved",
    )
    tenants.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.json is None:
        args.json = RESULTS / ("scale_tenants.json" if args.tenants else "scale.json")
    return args


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def write(user_id: int, rows: list[tuple[str, int]], pool_vectors: np.ndarray, *, embed: bool = False) -> float:
    """Memories per second through bulk_add."""
    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput

    items = [MemoryInput(content=text) for text, _ in rows]
    vectors = None if embed else synthetic.perturbed(pool_vectors, [i for _, i in rows]).tolist()
    started = time.perf_counter()
    bulk_add(user_id, items, embeddings=vectors, batch_size=1000)
    return len(rows) / (time.perf_counter() - started)


def _sample(fn, queries: list[str], vectors: np.ndarray, budget_s: float, minimum: int = 20) -> list[float]:
    """Latency of fn(query, vector) over the queries, stopping early past the time budget (slow
    configurations at 100k would otherwise take most of the run); always at least `minimum` calls."""
    out, deadline = [], time.perf_counter() + budget_s
    for n, (q, v) in enumerate(zip(queries, vectors)):
        if n >= minimum and time.perf_counter() > deadline:
            break
        started = time.perf_counter()
        fn(q, v.tolist())
        out.append((time.perf_counter() - started) * 1000)
    return out


def interleaved(calls: dict, queries: list[str], vectors: np.ndarray, budget_s: float, minimum: int = 20) -> dict:
    """Latency of each fn(query, vector), taking turns on every query so that load changes on the
    shared machine hit every series alike; stops past the budget (all series together)."""
    out = {name: [] for name in calls}
    overlap = {name: [] for name in calls}  # share of the first series' results each one also returns
    deadline = time.perf_counter() + budget_s
    for n, (q, v) in enumerate(zip(queries, vectors)):
        if n >= minimum and time.perf_counter() > deadline:
            break
        first = None
        for name, fn in calls.items():
            started = time.perf_counter()
            found = fn(q, v.tolist())
            out[name].append((time.perf_counter() - started) * 1000)
            ids = {m.pk for m in found.memories}
            first = ids if first is None else first
            overlap[name].append(len(ids & first) / len(first) if first else 1.0)
    return {"latency": out, "overlap": {name: sum(v) / len(v) for name, v in overlap.items() if v}}


def measure(
    user,
    queries: list[str],
    vectors: np.ndarray,
    short: list[str],
    short_vectors: np.ndarray,
    budget_s: float,
    variants: list[str] = (),
) -> dict:
    """Recall series use chat-like questions; page-search series use search-box queries (1-2 words)."""
    from memoryapp.engine.recall.recall import recall
    from memoryapp.engine.recall.recipes import RECALL_MEMORIES_PAGE, RECALL_POSTGRES_ONLY
    from memoryapp.models import Memory, MemoryStatus

    from .variants import VARIANTS

    no_trigram = VARIANTS["no_trigram"](RECALL_POSTGRES_ONLY.limit)
    page_no_trigram = RECALL_MEMORIES_PAGE.model_copy(
        update={"trigram": RECALL_MEMORIES_PAGE.trigram.model_copy(update={"enabled": False})}
    )
    runs = {
        "recall_ms": RECALL_POSTGRES_ONLY,
        "recall_no_trigram_ms": no_trigram,
        "page_search_ms": RECALL_MEMORIES_PAGE,
        "page_search_no_trigram_ms": page_no_trigram,
    }
    result = {}
    for key, config in runs.items():
        qs, vs = (short, short_vectors) if key.startswith("page") else (queries, vectors)
        call = lambda q, v, c=config: recall(user, q, config=c, query_vector=v, record_access=False)  # noqa: E731
        _sample(call, qs[:5], vs[:5], budget_s)  # warm caches and the connection
        result[key] = latency_summary(_sample(call, qs, vs, budget_s))
    if variants:  # the default and each variant, taking turns per query
        from .variants import resolve

        configs = {
            "recall_ms": RECALL_POSTGRES_ONLY,
            **{f"recall_{name}_ms": resolve(name, RECALL_POSTGRES_ONLY.limit) for name in variants},
        }
        calls = {
            key: (lambda q, v, c=config: recall(user, q, config=c, query_vector=v, record_access=False))
            for key, config in configs.items()
        }
        interleaved(calls, queries[:5], vectors[:5], budget_s)  # warm-up
        series = interleaved(calls, queries, vectors, budget_s * len(calls))
        result["interleaved"] = {
            key: {**latency_summary(values), "top10_overlap": round(series["overlap"][key], 3)}
            for key, values in series["latency"].items()
        }
    page = lambda: list(Memory.objects.filter(user=user, status=MemoryStatus.ACTIVE).order_by("-created_at")[:20])  # noqa: E731
    result["page_list_ms"] = latency_summary(timed(page, 50))
    return result


GRAPH_MAX_SIZE = 1000  # the graph is synced and timed up to this size (a memory at a time, as the app does)


def measure_graph(user, queries: list[str], vectors: np.ndarray, args: argparse.Namespace) -> dict:
    """Sync the user's memories into the graph, then recall p50/p95 with the graph on and off, taking
    turns per query (the app's recipe for tool recall, RECALL_POSTGRES_ONLY's limits, the app's budget)."""
    from django.test import override_settings

    from memoryapp.engine.recall.recall import recall
    from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY

    out: dict = {}
    with override_settings(GRAPH_BACKEND="graphiti", GRAPH_RECALL="on"):
        if "on" in args.graph:
            out["sync"] = graph_bench.merge_sync({}, graph_bench.sync_user(user.pk, graph_bench.memory_ids(user.pk)))
        budget = RECALL_POSTGRES_ONLY.graph.model_copy(update={"enabled": True}).time_budget_ms
        configs = {mode: graph_bench.with_graph(RECALL_POSTGRES_ONLY, mode == "on", budget) for mode in args.graph}
        calls = {
            mode: (lambda q, v, c=config: recall(user, q, config=c, query_vector=v, record_access=False))
            for mode, config in configs.items()
        }
        interleaved(calls, queries[:5], vectors[:5], args.budget)  # warm-up
        series = interleaved(calls, queries, vectors, args.budget * len(calls))
        for mode, values in series["latency"].items():
            out[mode] = {"recall_ms": latency_summary(values), "top10_overlap": round(series["overlap"][mode], 3)}
        if {"on", "off"} <= set(out):
            out["p95_on_over_off"] = round(out["on"]["recall_ms"]["p95"] / out["off"]["recall_ms"]["p95"], 2)
        if "on" in out:
            out["on"]["graph_alone"] = graph_alone(user, queries, vectors)
        graph_bench.drop_user(user.pk)
    return out


def graph_alone(user, queries: list[str], vectors: np.ndarray) -> dict:
    """The graph's own search per query (search_memory_ids, what recall's graph thread runs), and the share
    of queries it found anything for (a query naming no rare entity asks FalkorDB nothing)."""
    from memoryapp.graph import search_memory_ids

    found, ms = 0, []
    for query, vector in zip(queries, vectors):
        started = time.perf_counter()
        hits = search_memory_ids(user.pk, query, limit=20, timeout_s=10, query_vector=[float(x) for x in vector])
        ms.append((time.perf_counter() - started) * 1000)
        found += bool(hits)
    return {"search_ms": latency_summary(ms), "queries_with_hits": round(found / len(queries), 3)}


def run(args: argparse.Namespace) -> dict:
    runtime.setup_django()
    from django.conf import settings
    from django.db import connection

    from memoryapp.engine.recall.recipes import RECALL_POSTGRES_ONLY

    pool, pool_vectors, queries, query_vectors, short, short_vectors = synthetic.embedded_inputs(
        args.pool, args.queries, Path(settings.VAR_DIR) / "embcache"
    )

    sample_user = runtime.fresh_user("scale-embed")
    embed_rows = synthetic.memories(args.embed_sample, pool, start=10_000_000)
    with_embedding = write(sample_user.pk, embed_rows, pool_vectors, embed=True)
    sample_user.delete()

    user, have, rows = runtime.fresh_user("scale"), 0, []
    for size in sorted(args.sizes):
        started, rates = time.perf_counter(), []
        for chunk in range(have, size, 10_000):
            count = min(10_000, size - chunk)
            rates.append((count, write(user.pk, synthetic.memories(count, pool, start=chunk), pool_vectors)))
        have = size
        with connection.cursor() as cursor:  # fresh statistics, as autovacuum would give a settled table
            cursor.execute("ANALYZE memoryapp_memory")
        written = sum(c for c, _ in rates)
        row = {
            "size": size,
            "write_per_s_precomputed": round(written / sum(c / r for c, r in rates), 1) if rates else None,
            "write_per_s_with_embedding": round(with_embedding, 1),
            "fill_s": round(time.perf_counter() - started, 1),
            **measure(user, queries, query_vectors, short, short_vectors, args.budget, args.variants),
        }
        if getattr(args, "graph", None) and size <= GRAPH_MAX_SIZE:
            row["graph"] = measure_graph(user, queries, query_vectors, args)
        logger.info("%s", json.dumps(row))
        rows.append(row)
    result = {
        "sizes": rows,
        "queries": args.queries,
        "pool": args.pool,
        "vector_note": "pool vectors reused with Gaussian noise sigma 0.02 per dimension, renormalised",
    }
    if args.explain:
        from .variants import VARIANTS

        configs = {
            "RECALL_POSTGRES_ONLY": RECALL_POSTGRES_ONLY,
            "no_trigram": VARIANTS["no_trigram"](RECALL_POSTGRES_ONLY.limit),
            **{name: VARIANTS[name](RECALL_POSTGRES_ONLY.limit) for name in args.variants},
        }
        result["explain"] = {
            name: explain(user, queries[0], query_vectors[0].tolist(), config) for name, config in configs.items()
        }
        for name, plan in result["explain"].items():
            print(f"--- {name}\n{plan}")
    user.delete()
    return result


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    args = parse_args(argv)
    if args.plot_only:
        saved = json.loads(args.json.read_text())
        if args.tenants:
            plot_tenants(saved["tenants"], args.plot)
        else:
            plot_scale(saved["sizes"], args.plot)
        return
    if args.tenants:
        result = tenants.run(args)
        runtime.write_result(args.json, result, "bench.scale", argv)
        if args.plot:
            plot_tenants(result["tenants"], args.plot)
        print("\n".join(tenants.summary_lines(result)))
        return
    result = run(args)
    runtime.write_result(args.json, result, "bench.scale", argv)
    if args.plot:
        plot_scale(result["sizes"], args.plot)
    for row in result["sizes"]:
        for key, summary in row.get("interleaved", {}).items():
            print(
                f"{row['size']:>7}: interleaved {key} p50={summary['p50']:.1f} p95={summary['p95']:.1f} ms "
                f"top-10 overlap with the default {summary['top10_overlap']}"
            )
        print(
            f"{row['size']:>7}: recall p50={row['recall_ms']['p50']:.1f} p95={row['recall_ms']['p95']:.1f} ms  "
            f"no-trigram p95={row['recall_no_trigram_ms']['p95']:.1f}  "
            f"search p95={row['page_search_ms']['p95']:.1f}  list p95={row['page_list_ms']['p95']:.1f}  "
            f"write {row['write_per_s_precomputed']}/s ({row['write_per_s_with_embedding']}/s embedding)"
        )


if __name__ == "__main__":
    main()
