"""LoCoMo turn-level evidence recall@k for memoryapp's recall, with peers side by side.

    python -m bench.locomo [--data PATH] [--k 5 10 20] [--peers [bm25 dense mem0]] [--json OUT] [--limit-samples N]
                           [--samples ID ...] [--variants NAME ...] [--graph on off]

Every turn of a sample becomes a memory of a fresh user ("Speaker: text [shares an image: caption]",
valid_from = the session date); each category 1-4 question is recalled with RECALL_POSTGRES_ONLY
(limit = max k), asked the day after the sample's last session. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from datetime import timedelta
from pathlib import Path

from . import graph as graph_bench
from . import runtime
from .calibration import score_distribution
from .dataset import CATEGORY_NAMES, load, recall_questions
from .ingest import CONTEXTS
from .metrics import RecallTally, latency_summary

PEERS = ("bm25", "dense", "mem0")
logger = logging.getLogger("bench.locomo")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=runtime.LOCOMO_DATA, help="a LoCoMo-shaped JSON file")
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument(
        "--peers",
        nargs="*",
        choices=PEERS,
        metavar="PEER",
        help="also run these peers (bm25, dense, mem0; all three when none is named); "
        "dense needs only the default install, bm25 and mem0 the bench extras",
    )
    parser.add_argument("--no-mem0", action="store_true", help="with --peers, leave mem0 out")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--limit-samples", type=int, help="only the first N samples")
    parser.add_argument(
        "--samples",
        nargs="+",
        metavar="ID",
        help="only these conversations (conv-26 ...): choose on some, report on the others",
    )
    parser.add_argument(
        "--context",
        choices=CONTEXTS,
        default="previous",
        help="what each turn's memory keeps as context (searched, not shown)",
    )
    parser.add_argument("--variants", nargs="*", default=[], help="extra config variants (bench/variants.py)")
    graph_bench.add_argument(parser, tuning=True)
    return parser.parse_args(argv)


class Timer:
    def __init__(self) -> None:
        self.ms: list[float] = []

    def __call__(self, fn, *args, **kwargs):
        started = time.perf_counter()
        value = fn(*args, **kwargs)
        self.ms.append((time.perf_counter() - started) * 1000)
        return value


def chosen_peers(args: argparse.Namespace) -> list[str]:
    """`--peers` alone means all three; `--no-mem0` still leaves mem0 out."""
    if args.peers is None:
        return []
    return [name for name in (args.peers or PEERS) if not (name == "mem0" and args.no_mem0)]


def build_peers(ingested, names: list[str]) -> list:
    peers = []
    if "bm25" in names:
        from .peers.bm25 import BM25Peer

        peers.append(BM25Peer(ingested.ids, ingested.texts))
    if "dense" in names:
        from .peers.dense import DensePeer

        peers.append(DensePeer(ingested.ids, ingested.vectors))
    if "mem0" in names:
        from django.conf import settings

        from .peers.mem0_peer import Mem0Peer

        started = time.perf_counter()
        peers.append(
            Mem0Peer(
                ingested.ids, ingested.texts, runtime.database_uri(), Path(settings.VAR_DIR), vectors=ingested.vectors
            )
        )
        logger.info("mem0 ingested %d memories in %.1f s", len(ingested.ids), time.perf_counter() - started)
    return peers


def run(args: argparse.Namespace) -> dict:
    if "on" in (getattr(args, "graph", None) or []):
        # The rules-built graph is not asked by recall by default (GRAPH_RECALL=auto): here it is, in the
        # runs that switch it on; every other run's config leaves the graph out as before.
        os.environ["GRAPH_RECALL"] = "on"
    runtime.setup_django()
    from django.conf import settings

    from memoryapp.engine.recall.recall import recall
    from memoryapp.providers.embeddings import get_embedder, query_vector

    from .ingest import ingest
    from .variants import baseline, resolve

    top = max(args.k)
    config = baseline(top)
    extra = {name: resolve(name, top) for name in args.variants if name != "baseline"}
    samples = [s for s in load(args.data, args.limit_samples) if not args.samples or s.sample_id in args.samples]
    embedder = get_embedder()
    embedder.embed_one("warm up")  # first call loads weights; not a recall cost
    ours, embed_t, recall_t, postgres_ms = RecallTally(args.k), Timer(), Timer(), []
    variant_tallies = {name: RecallTally(args.k) for name in extra}
    variant_timers = {name: Timer() for name in extra}  # interleaved with ours: same load, comparable
    peer_tallies: dict[str, RecallTally] = {}
    peer_timers: dict[str, Timer] = {}
    top1, top3 = [], []
    graph_modes = getattr(args, "graph", None) or []
    graph_runs = {
        mode: {
            "tally": RecallTally(args.k),
            "timer": Timer(),
            "degraded": 0,
            "config": graph_bench.with_graph(config, mode == "on", args.graph_budget_ms, args.graph_weight),
        }
        for mode in graph_modes
    }
    graph_only = RecallTally(args.k)  # what graph recall alone finds (its contribution, apart from fusion)
    graph_sync: dict = {}
    ingest_stats = {"turns": 0, "memories": 0, "duplicates": 0, "embed_s": 0.0, "write_s": 0.0}
    for sample in samples:
        data = ingest(sample, Path(settings.VAR_DIR) / "embcache", context=args.context)
        for key in ("duplicates", "embed_s", "write_s"):
            ingest_stats[key] += getattr(data, key)
        ingest_stats["turns"] += len(sample.turns)
        ingest_stats["memories"] += len(data.ids)
        asked_at = max((t.when for t in sample.turns if t.when), default=None)
        asked_at = asked_at + timedelta(days=1) if asked_at else None
        peers = build_peers(data, chosen_peers(args))
        if "on" in graph_runs:
            one = graph_bench.sync_user(data.user.pk, data.ids)
            graph_bench.merge_sync(graph_sync, one)
            logger.info("%s: graph sync %s", sample.sample_id, one)
        questions = recall_questions(sample)
        logger.info(
            "%s: %d turns -> %d memories, %d questions",
            sample.sample_id,
            len(sample.turns),
            len(data.ids),
            len(questions),
        )
        for q in questions:
            vector = embed_t(query_vector, embedder, q.question)  # the query side (e5's "query: ")
            result = recall_t(
                recall,
                data.user,
                q.question,
                config=config,
                k=top,
                at=asked_at,
                query_vector=vector,
                record_access=False,
            )
            postgres_ms.append(result.timings_ms.get("postgres", float("nan")))
            retrieved = [item.memory.pk for item in result.items]
            ours.add(q.category, retrieved, q.evidence, data.turns_of)
            for rank, item in enumerate(result.items[:3]):
                hit = (item.score, bool(set(data.turns_of.get(item.memory.pk, ())) & set(q.evidence)))
                top3.append(hit)
                if rank == 0:
                    top1.append(hit)
            for name, variant in extra.items():
                found = variant_timers[name](
                    recall,
                    data.user,
                    q.question,
                    config=variant,
                    k=top,
                    at=asked_at,
                    query_vector=vector,
                    record_access=False,
                )
                variant_tallies[name].add(q.category, [i.memory.pk for i in found.items], q.evidence, data.turns_of)
            for run_ in graph_runs.values():
                found = run_["timer"](
                    recall,
                    data.user,
                    q.question,
                    config=run_["config"],
                    k=top,
                    at=asked_at,
                    query_vector=vector,
                    record_access=False,
                )
                run_["degraded"] += found.degraded
                run_["tally"].add(q.category, [i.memory.pk for i in found.items], q.evidence, data.turns_of)
            if "on" in graph_runs:
                from memoryapp.graph import GraphUnavailable, search_memory_ids

                try:
                    hits = search_memory_ids(
                        data.user.pk, q.question, at=asked_at, limit=top, timeout_s=10, query_vector=vector
                    )
                except GraphUnavailable:
                    hits = []
                graph_only.add(q.category, [memory_id for memory_id, _ in hits], q.evidence, data.turns_of)
            for peer in peers:
                timer = peer_timers.setdefault(peer.name, Timer())
                hits = timer(peer.search, q.question, vector, top)
                peer_tallies.setdefault(peer.name, RecallTally(args.k)).add(q.category, hits, q.evidence, data.turns_of)
        for peer in peers:
            peer.close()
        if "on" in graph_runs:
            graph_bench.drop_user(data.user.pk)
        data.user.delete()  # keeps the bench database (and its HNSW index) from growing run after run
    result = report(
        args,
        ours,
        embed_t,
        recall_t,
        postgres_ms,
        variant_tallies,
        peer_tallies,
        peer_timers,
        top1,
        top3,
        ingest_stats,
        variant_timers,
    )
    if graph_runs:
        result["graph"] = {
            mode: {
                "recall": r["tally"].overall(),
                "by_category": r["tally"].by_category(),
                "latency_ms": latency_summary(r["timer"].ms),
                "degraded": r["degraded"],
            }
            for mode, r in graph_runs.items()
        }
        if "on" in result["graph"]:
            result["graph"]["on"]["sync"] = graph_sync
            result["graph"]["on"]["graph_alone"] = {
                "recall": graph_only.overall(),
                "by_category": graph_only.by_category(),
            }
    return result


def report(
    args,
    ours,
    embed_t,
    recall_t,
    postgres_ms,
    variant_tallies,
    peer_tallies,
    peer_timers,
    top1,
    top3,
    ingest_stats,
    variant_timers=None,
) -> dict:
    with_embedding = [e + r for e, r in zip(embed_t.ms, recall_t.ms)]
    latency = {
        "recall_with_embedding": latency_summary(with_embedding),
        "recall_without_embedding": latency_summary(recall_t.ms),
        "query_embedding": latency_summary(embed_t.ms),
        "postgres_statement": latency_summary(postgres_ms),
    }
    peers = {
        name: {
            "recall": tally.overall(),
            "by_category": tally.by_category(),
            "latency_ms": latency_summary(peer_timers[name].ms),
        }
        for name, tally in peer_tallies.items()
    }
    if "mem0" in peers:  # mem0's search embeds the query itself: compare with our recall including the embedding
        mem0_ms = peers["mem0"]["latency_ms"]
        peers["mem0"]["speedup_vs_ours"] = {
            "p50_with_embedding": round(mem0_ms["p50"] / latency["recall_with_embedding"]["p50"], 2),
            "p95_with_embedding": round(mem0_ms["p95"] / latency["recall_with_embedding"]["p95"], 2),
            "p50_search_only": round(mem0_ms["p50"] / latency["recall_without_embedding"]["p50"], 2),
        }
    return {
        "data": str(args.data),
        "samples": getattr(args, "samples", None),
        "k": args.k,
        "context": args.context,
        "questions": len(recall_t.ms),
        "recall": ours.overall(),
        "by_category": ours.by_category(),
        "latency_ms": latency,
        "peers": peers,
        "variants": {
            name: {
                "recall": t.overall(),
                "by_category": t.by_category(),
                "latency_ms": latency_summary(variant_timers[name].ms) if variant_timers else None,
            }
            for name, t in variant_tallies.items()
        },
        "score_distribution": {"top1": score_distribution(top1), "top3": score_distribution(top3)},
        "ingest": {
            **ingest_stats,
            "embed_s": round(ingest_stats["embed_s"], 1),
            "write_s": round(ingest_stats["write_s"], 1),
        },
        "categories": {str(c): n for c, n in CATEGORY_NAMES.items()},
    }


def print_summary(result: dict) -> None:
    def row(name: str, recall: dict, latency: dict | None) -> str:
        cells = "  ".join(f"R@{k}={recall[k]:.3f}" for k in map(str, result["k"]))
        lat = f"  p50={latency['p50']:.1f}ms p95={latency['p95']:.1f}ms" if latency else ""
        return f"{name:<24}{cells}{lat}"

    lat = result["latency_ms"]
    print(f"{result['questions']} questions (categories 1-4) from {result['data']}")
    print(row("ours (no embed)", result["recall"], lat["recall_without_embedding"]))
    print(row("ours (with embed)", result["recall"], lat["recall_with_embedding"]))
    for category, values in result["by_category"].items():
        print(row(f"  cat {category} {CATEGORY_NAMES.get(int(category), '')} n={values['n']}", values, None))
    for name, peer in result["peers"].items():
        print(row(f"peer {name}", peer["recall"], peer["latency_ms"]))
    for mode, values in result.get("graph", {}).items():
        print(row(f"graph {mode}", values["recall"], values["latency_ms"]))
        for category, cat in values["by_category"].items():
            print(row(f"  cat {category} {CATEGORY_NAMES.get(int(category), '')}", cat, None))
        if "graph_alone" in values:
            print(row("  graph alone", values["graph_alone"]["recall"], None))
            print(f"  sync: {values['sync']}")
    for name, variant in result["variants"].items():
        print(row(f"variant {name}", variant["recall"], variant.get("latency_ms")))
        for category, values in variant["by_category"].items():
            print(row(f"  cat {category} {CATEGORY_NAMES.get(int(category), '')}", values, None))


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for chatty in ("mem0", "sentence_transformers", "httpx"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    args = parse_args(argv)
    result = run(args)
    print_summary(result)
    if args.json:
        runtime.write_result(args.json, result, "bench.locomo", argv)


if __name__ == "__main__":
    main()
