"""The local embedders side by side, interleaved so the machine's load weighs on each alike: query
latency (one message at a time, as a chat turn embeds it; English and Chinese apart) and ingest rate
(memories embedded in batches, as an import or a LoCoMo sample is).

    python -m bench.embedders [--models NAME ...] [--rounds N] [--quality] [--json OUT]

Queries are the messages of bench.chat's dev and holdout cases; ingested texts their personas' memories
and the first LoCoMo dev conversation's turns. With --quality, first each model's quality as it would
ship: the learned models retrained on its vectors, then bench.chat, the model path, LoCoMo, extraction
and changes on them (bench/embedder_quality.py), all in one table (docs/benchmarks/locomo-graph.md,
"Choosing the embedder").
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from . import runtime
from .chat_data import load_personas
from .dataset import load
from .metrics import latency_summary

MODELS = ("use-multilingual-v3", "multilingual-e5-small", "use-e5-fused")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.embedders", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--rounds", type=int, default=3, help="passes over the queries, models interleaved")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument(
        "--quality", action="store_true", help="also retrain the learned models on each and measure them (minutes each)"
    )
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


def build(name: str):
    from memoryapp.providers.embeddings import catalog

    backend = catalog.LOCAL_MODELS[name][1]
    if backend == "use":
        from memoryapp.providers.embeddings.use import USEEmbedder

        return USEEmbedder(name)
    if backend == "e5":
        from memoryapp.providers.embeddings.e5 import E5Embedder

        return E5Embedder(name)
    if backend == "fused":
        from memoryapp.providers.embeddings.fused import FusedEmbedder

        return FusedEmbedder(name)
    from memoryapp.providers.embeddings.local import LocalEmbedder

    return LocalEmbedder(name)


def texts() -> tuple[dict[str, list[str]], list[str]]:
    personas = load_personas()
    queries: dict[str, list[str]] = {"en": [], "zh": []}
    for persona in personas:
        for case in persona.cases:
            if case.language in queries:
                queries[case.language].append(case.message)
    stored = [m.content for p in personas for m in p.memories]
    stored += [t.content for t in load(runtime.LOCOMO_DATA, 1)[0].turns]
    return queries, stored


def run(args: argparse.Namespace) -> dict:
    from memoryapp.providers.embeddings.base import query_vector

    queries, stored = texts()
    models = {name: build(name) for name in args.models}
    for model in models.values():
        query_vector(model, "warm up")
    query_ms = {name: {lang: [] for lang in queries} for name in models}
    ingest_s = {name: 0.0 for name in models}
    for _ in range(args.rounds):
        for lang, messages in queries.items():
            for message in messages:
                for name, model in models.items():  # interleaved: the same moment's load for each
                    started = time.perf_counter()
                    query_vector(model, message)
                    query_ms[name][lang].append((time.perf_counter() - started) * 1000)
    for start in range(0, len(stored), args.batch):
        batch = stored[start : start + args.batch]
        for name, model in models.items():
            started = time.perf_counter()
            model.embed(batch)
            ingest_s[name] += time.perf_counter() - started
    return {
        "queries": {lang: len(m) for lang, m in queries.items()},
        "rounds": args.rounds,
        "ingested": len(stored),
        "models": {
            name: {
                "dim": models[name].dim,
                "query_ms": {lang: latency_summary(v) for lang, v in query_ms[name].items()},
                "ingest_texts_per_s": round(len(stored) / ingest_s[name], 1),
            }
            for name in models
        },
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.quality:
        from .embedder_quality import run as quality
        from .tables import embedders_table

        result = quality(args, timing=run)
        print(embedders_table(result))
        if args.json:
            runtime.write_result(args.json, result, "bench.embedders", argv)
        return
    result = run(args)
    for name, row in result["models"].items():
        lat = "  ".join(f"{lang} p50={v['p50']:.1f} p95={v['p95']:.1f} ms" for lang, v in row["query_ms"].items())
        print(f"{name:<24} {row['dim']}-d  {lat}  ingest {row['ingest_texts_per_s']} texts/s")
    if args.json:
        runtime.write_result(args.json, result, "bench.embedders", argv)
    else:
        print(json.dumps(result["models"], indent=1))


if __name__ == "__main__":
    main()
