"""Graph sync throughput without a model, one memory at a time against the batched path, in one run.

    python -m bench.graph_sync [--samples conv-26 ...] [--modes one batch] [--json OUT]

Each mode gets each LoCoMo sample as a fresh user (memories written as bench.locomo writes them), syncs them
into the graph (GRAPH_EXTRACTION=rules) and drops the graph after: `one` calls sync.sync_memory row by row,
oldest first (how the worker synced before batching: a claim, a write and a finish per memory); `batch` is
the app's path after a bulk write (the drain queues the user's newest waiting row, whose task syncs the
older ones a batch of GRAPH_SYNC_BATCH at a time). Both modes must build the same number of entities,
facts and episodes. The first memory of each user is synced alone first (imports, jieba, the graph's
indexes) and is not counted. See docs/graph.md.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from . import runtime

MODES = ("one", "batch")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.graph_sync", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=runtime.LOCOMO_DATA, help="a LoCoMo-shaped JSON file")
    parser.add_argument("--samples", nargs="+", default=["conv-26"], metavar="ID")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--json", type=Path, help="write the results here")
    return parser.parse_args(argv)


def sync_sample(sample, mode: str) -> dict:
    from django.conf import settings

    from memoryapp.graph import get_graph, sync

    from .ingest import ingest

    data = ingest(sample, Path(settings.VAR_DIR) / "embcache")
    first, rest = data.ids[0], data.ids[1:]
    sync.sync_memory(first)
    started = time.perf_counter()
    if mode == "one":
        outcomes = [sync.sync_memory(memory_id) for memory_id in rest]
    else:
        outcomes = list(sync.sync_through(rest[-1]).values())
    seconds = time.perf_counter() - started
    counts = get_graph().counts(data.user.pk)
    sync.drop_user(data.user.pk)
    return {"memories": len(rest), "seconds": seconds, "synced": sum(o.value == "synced" for o in outcomes), **counts}


def run(args: argparse.Namespace) -> dict:
    os.environ.setdefault("GRAPH_EXTRACTION", "rules")
    runtime.setup_django()
    from memoryapp.providers.embeddings import get_embedder

    from .dataset import load

    get_embedder().embed_one("warm up")
    samples = [s for s in load(args.data, None) if s.sample_id in args.samples]
    result: dict = {"samples": [s.sample_id for s in samples], "modes": {}}
    for mode in args.modes:
        total: dict = {"loadavg_before": [round(x, 2) for x in os.getloadavg()]}
        for sample in samples:
            for key, value in sync_sample(sample, mode).items():
                total[key] = total.get(key, 0) + value
        total["seconds"] = round(total["seconds"], 2)
        total["memories_per_s"] = round(total["memories"] / total["seconds"], 1)
        total["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
        result["modes"][mode] = total
        print(
            f"{mode:5s} {total['memories']} memories in {total['seconds']} s = {total['memories_per_s']}/s "
            f"({total.get('entities')} entities, {total.get('edges')} facts; load {total['loadavg_before']} "
            f"-> {total['loadavg_after']})",
            flush=True,
        )
    return result


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    result = run(args)
    if args.json:
        runtime.write_result(args.json, result, "bench.graph_sync", argv)


if __name__ == "__main__":
    main()
