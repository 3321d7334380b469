"""`python -m bench.embedders --quality`: the local embedders compared as each would ship, not as a drop-in.

For each embedder, in a process of its own (EMBEDDING_MODEL and EMBEDDING_DIM set; the bench database of
its dimension, runtime.bench_var_dir; LEARNED_WEIGHTS_DIR its own folder under var/embedders/):

1. the three learned models retrained on its vectors (`bench.train --out`; the shipped weights untouched),
2. on those: bench.chat (dev + holdout: need-hit@3 and precision per language), the model path (holdout,
   500 distractors), the chat turn's recall with its query embedding at 1,000 memories (dev), LoCoMo
   recall (graph off, the dev file), extraction (the learned extractor on every written window) and
   changes (the pair bench),

then the embedders' query latency and ingest rate in this process, interleaved (bench.embedders), so the
machine's load weighs on each alike. Each step's own result stays in var/embedders/<model>/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from . import runtime

WORK = runtime.REPO / "var" / "embedders"

# (name, arguments): the steps run for each embedder once its models are retrained, in order.
STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("chat", ("bench.chat", "--split", "dev", "holdout", "--locomo", "0")),
    ("model_path", ("bench.chat", "--split", "holdout", "--locomo", "0", "--distractors", "500", "--model-path")),
    ("chat_1k", ("bench.chat", "--split", "dev", "--locomo", "0", "--pad", "1000")),
    ("locomo", ("bench.locomo",)),
    ("extraction", ("bench.extraction", "--extractor", "learned", "--no-locomo")),
    ("changes", ("bench.changes", "--split", "dev", "holdout")),
)
LANGUAGES = ("en", "zh", "mixed")


def environment(model: str, dim: int, weights: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MEMORYAPP_VAR_DIR", "LEARNED_WEIGHTS_DIR")}
    return env | {"EMBEDDING_MODEL": model, "EMBEDDING_DIM": str(dim), "LEARNED_WEIGHTS_DIR": str(weights)}


def _run(argv: list[str], env: dict[str, str], log) -> float:
    """One bench command in its own process; its seconds. A failure stops the comparison."""
    started = time.monotonic()
    log.write(f"\n$ {' '.join(argv)}\n")
    log.flush()
    done = subprocess.run([sys.executable, "-m", *argv], cwd=runtime.REPO, env=env, stdout=log, stderr=log)
    if done.returncode != 0:
        raise SystemExit(f"`python -m {' '.join(argv)}` failed (exit {done.returncode}); see {log.name}")
    return round(time.monotonic() - started, 1)


def measure(model: str, dim: int) -> dict:
    """Retrain, then every quality step, for one embedder; the figures the table shows."""
    from memoryapp.engine.learned.model import read

    folder = WORK / model
    weights = folder / "weights"
    weights.mkdir(parents=True, exist_ok=True)
    env = environment(model, dim, weights)
    seconds: dict[str, float] = {}
    with (folder / "run.log").open("w") as log:
        print(f"{model}: training", flush=True)
        seconds["train"] = _run(["bench.train", "--out", str(weights)], env, log)
        for name, argv in STEPS:
            print(f"{model}: {name}", flush=True)
            seconds[name] = _run([*argv, "--json", str(folder / f"{name}.json")], env, log)
    results = {name: json.loads((folder / f"{name}.json").read_text()) for name, _ in STEPS}
    trained_on = {path.stem: read(path).embedder for path in sorted(weights.glob("*.npz"))}
    return {
        "dim": dim,
        "weights": str(weights.relative_to(runtime.REPO)),
        "trained_on": trained_on,
        **figures(results),
    } | {"seconds": seconds}


def figures(r: dict) -> dict:
    """The headline figures of one embedder's step results."""
    chat = r["chat"]
    learned = r["extraction"]["by_extractor"]["learned"]["overall"]
    changes = r["changes"]["by_split"]["holdout"]["learned"]
    locomo = r["locomo"]
    return {
        "chat": {
            language: {k: chat["by_language"][language][k] for k in ("turns", "need_hit_at_3", "precision")}
            for language in LANGUAGES
        }
        | {"all": {k: chat["overall"][k] for k in ("turns", "need_hit_at_3", "precision", "no_memory_injection_rate")}},
        "model_path_need_hit": r["model_path"]["model_path"]["overall"]["need_hit_at_k"],
        "chat_recall_ms_1k": r["chat_1k"]["overall"]["recall_ms"],
        "locomo": {
            "recall": locomo["recall"],
            "questions": locomo["questions"],
            "recall_with_embedding_ms": locomo["latency_ms"]["recall_with_embedding"],
            "embed_s": locomo["ingest"]["embed_s"],
        },
        "extraction": {k: learned[k] for k in ("windows", "precision", "recall", "kind_accuracy", "update_or_asked")},
        "changes_holdout": {
            language: {k: changes[language][k] for k in ("update_detection", "wrong_replacements")}
            for language in ("en", "zh")
        },
    }


def run(args, timing: Callable[[argparse.Namespace], dict]) -> dict:
    """Every embedder's quality, then their latency and ingest rate interleaved (`timing`: bench.embedders'
    own run, passed in so neither module imports the other)."""
    from memoryapp.providers.embeddings.catalog import LOCAL_MODELS

    started = time.monotonic()
    models = {}
    for model in args.models:
        begun = time.monotonic()
        models[model] = measure(model, LOCAL_MODELS[model][0])
        models[model]["seconds"]["all"] = round(time.monotonic() - begun, 1)
    print("latency and ingest, interleaved", flush=True)
    timed = timing(args)
    for model, row in timed["models"].items():
        models[model] |= {"query_ms": row["query_ms"], "ingest_texts_per_s": row["ingest_texts_per_s"]}
    return {
        "benchmark": "bench.embedders --quality",
        "steps": {name: "python -m " + " ".join(argv) for name, argv in STEPS},
        "queries": timed["queries"],
        "rounds": timed["rounds"],
        "ingested": timed["ingested"],
        "models": models,
        "seconds": round(time.monotonic() - started, 1),
    }
