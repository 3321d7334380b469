"""Entity extraction without a model, on the written cases (bench/entity_cases/): precision and recall
per language, typed and untyped, and the time per memory.

    python -m bench.entities [--split dev holdout] [--json OUT] [--show-misses N]

An extracted entity is right (untyped) when its normalised name (memoryapp.engine.entities.normalise_name)
equals a gold entity's in the same sentence; typed, when its type also matches. Each gold entity is
matched at most once. `unlisted_recall`: recall on the gold entities the gazetteer does not list, i.e.
what the rules find on their own. Needs no database, no embedder and no model.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from . import runtime
from .entity_data import SPLITS, Case, load_cases, split_sha256

GOAL = 0.85


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    os.environ.setdefault("MEMORYAPP_VAR_DIR", str(runtime.BENCH_VAR_DIR))
    import django

    django.setup()


def score(cases: list[Case], predictions: list[list[tuple[str, str]]]) -> dict:
    from memoryapp.engine.entities import normalise_name
    from memoryapp.engine.entities.known import fold, known

    counts = dict.fromkeys(("gold", "found", "right", "typed_right", "unlisted", "unlisted_found"), 0)
    misses = []
    for case, predicted in zip(cases, predictions):
        gold = [(normalise_name(n), t) for n, t in case.entities]
        counts["gold"] += len(gold)
        counts["found"] += len(predicted)
        open_gold = list(gold)
        wrong = []
        for name, kind in predicted:
            key = normalise_name(name)
            match = next((g for g in open_gold if g[0] == key), None)
            if match is None:
                wrong.append(f"+{name}/{kind}")
                continue
            open_gold.remove(match)
            counts["right"] += 1
            counts["typed_right"] += match[1] == kind
            if match[1] != kind:
                wrong.append(f"~{name}/{kind} (gold {match[1]})")
        for (name, _), (key, _) in zip(case.entities, gold):
            if fold(name) not in known():
                counts["unlisted"] += 1
                counts["unlisted_found"] += any(normalise_name(n) == key for n, _ in predicted)
        wrong += [f"-{n}/{t}" for n, t in case.entities if (normalise_name(n), t) in open_gold]
        if wrong:
            misses.append({"id": case.id, "text": case.text, "errors": wrong})

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {"sentences": len(cases), "gold": counts["gold"], "extracted": counts["found"],
            "precision": ratio(counts["right"], counts["found"]), "recall": ratio(counts["right"], counts["gold"]),
            "typed_precision": ratio(counts["typed_right"], counts["found"]),
            "typed_recall": ratio(counts["typed_right"], counts["gold"]),
            "unlisted": counts["unlisted"], "unlisted_recall": ratio(counts["unlisted_found"], counts["unlisted"]),
            "misses": misses}


def timing(texts: list[str], rounds: int = 5) -> dict:
    """Microseconds per memory over every sentence, best of `rounds` (jieba's dictionary loaded first)."""
    from memoryapp.engine.entities import extract_entities

    load_started = time.perf_counter()
    extract_entities("我在杭州")
    first = time.perf_counter() - load_started
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for text in texts:
            extract_entities(text)
        best = min(best, time.perf_counter() - started)
    per = best / len(texts)
    return {"memories": len(texts), "us_per_memory": round(per * 1e6, 1), "memories_per_second": int(1 / per),
            "first_call_s": round(first, 2)}


def run(args: argparse.Namespace) -> dict:
    _setup()
    from memoryapp.engine.entities import extract_entities

    result: dict = {"benchmark": "bench.entities", "goal": {"precision": GOAL, "recall": GOAL},
                    "sha256": {split: split_sha256(split) for split in args.split}, "by_split": {}}
    every_text = []
    for split in args.split:
        cases = load_cases(split)
        every_text += [c.text for c in cases]
        predictions = [[(e.name, e.type.value) for e in extract_entities(c.text)] for c in cases]
        part = {"by_language": {}}
        for language in sorted({c.language for c in cases}, key=("en", "zh", "mixed").index):
            chosen = [(c, p) for c, p in zip(cases, predictions) if c.language == language]
            part["by_language"][language] = score([c for c, _ in chosen], [p for _, p in chosen])
        part["all"] = score(cases, predictions)
        result["by_split"][split] = part
    headline = "holdout" if "holdout" in args.split else args.split[-1]
    result["headline_split"] = headline
    result["by_language"] = {language: {k: s[k] for k in ("precision", "recall", "typed_precision", "typed_recall")}
                             for language, s in result["by_split"][headline]["by_language"].items()}
    result["timing"] = timing(every_text)
    return result


def print_summary(result: dict) -> None:
    print(f"{'':14} {'n':>4} {'gold':>5} {'prec':>6} {'recall':>6} {'typed P':>7} {'typed R':>7} {'unlisted R':>10}")
    for split, part in result["by_split"].items():
        for language, s in [*part["by_language"].items(), ("all", part["all"])]:
            print(f"{split + ' ' + language:14} {s['sentences']:4d} {s['gold']:5d} {s['precision']:6.3f} "
                  f"{s['recall']:6.3f} {s['typed_precision']:7.3f} {s['typed_recall']:7.3f} "
                  f"{s['unlisted_recall'] or 0:10.3f}")
    t = result["timing"]
    print(f"time: {t['us_per_memory']} us per memory ({t['memories_per_second']}/s over {t['memories']}; "
          f"first call {t['first_call_s']} s, loading jieba)")


def print_misses(result: dict, count: int) -> None:
    for split, part in result["by_split"].items():
        for miss in part["all"]["misses"][:count]:
            print(f"{miss['id']} {miss['text']}  {' '.join(miss['errors'])}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.entities", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    parser.add_argument("--json", type=Path, help="write the results here (bench/results/entities.json)")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N sentences with errors per split")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.entities", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
