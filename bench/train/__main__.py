"""python -m bench.train [NAME ...] [--seed N] [--out DIR]: train the learned models (all, or those named) on
the configured embedder's vectors and write each one's weights and report (bench/results/train-<NAME>.json).

With --out DIR, both go to DIR instead (the shipped weights and reports are left as they are): run the
app or a benchmark on them with LEARNED_WEIGHTS_DIR=DIR, e.g. for another EMBEDDING_MODEL (bench.embedders
--quality does)."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import time
from pathlib import Path

import bench.train as package
from bench.runtime import REPO, write_result

SKIP = {"diversity"}  # helpers, not models


def trainers() -> dict:
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") or info.name in SKIP:
            continue
        module = importlib.import_module(f"bench.train.{info.name}")
        if hasattr(module, "train") and hasattr(module, "NAME"):
            found[module.NAME] = module
    return found


def parse_args(argv: list[str] | None, available: dict) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.train", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"of {', '.join(sorted(available))}; default: all")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="write the weights and reports here, not over the shipped ones"
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(available))
    if unknown:  # argparse's choices refuse an empty nargs="*" list, so the names are checked here
        parser.error(f"no model named {', '.join(unknown)}; known: {', '.join(sorted(available))}")
    return args


def main(argv: list[str] | None = None) -> None:
    available = trainers()
    args = parse_args(argv, available)
    # Settings only (the embedder's name and dimension): training needs no database.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    reports = REPO / "bench" / "results"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        os.environ["LEARNED_WEIGHTS_DIR"] = str(args.out.resolve())  # where TrainedModel.save() writes
        reports = args.out
    import django

    django.setup()
    for name in args.names or sorted(available):
        started = time.monotonic()
        report = available[name].train(args.seed)
        report["seconds"] = round(time.monotonic() - started, 1)
        write_result(reports / f"train-{name}.json", report, "bench.train", sys.argv[1:])
        print(f"{name}: trained in {report['seconds']} s")


if __name__ == "__main__":
    main()
