"""Entity extraction without a model, on the written cases (bench/entity_cases/): precision and recall
per language, typed and untyped, and the time per memory.

    python -m bench.entities [--split dev holdout] [--json OUT] [--show-misses N]

An extracted entity is right (untyped) when its normalised name (memoryapp.graph.entities.normalise_name)
equals a gold entity's in the same sentence; typed, when its type also matches. Each gold entity is
matched at most once. `unlisted_recall`: recall on the gold entities the gazetteer does not list, i.e.
what the rules find on their own. Needs no database and no model.

`resolution`: bench/entity_cases/resolution/ (a new name, the names already known, which one it is or none)
through `resolve()`: by names alone, and with the configured embedder's cosine at several thresholds
(`--no-embedder` skips that). `right_merges` / `wrong_merges` / `missed_merges` count the decisions.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path

from . import runtime
from .entity_data import CASES_DIR, SPLITS, Case, load_cases, load_resolution_cases, split_sha256

GOAL = 0.85


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
    os.environ.setdefault("MEMORYAPP_VAR_DIR", str(runtime.BENCH_VAR_DIR))
    import django

    django.setup()


def score(cases: list[Case], predictions: list[list[tuple[str, str]]]) -> dict:
    from memoryapp.graph.entities import normalise_name
    from memoryapp.graph.entities.known import fold, known

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

    return {
        "sentences": len(cases),
        "gold": counts["gold"],
        "extracted": counts["found"],
        "precision": ratio(counts["right"], counts["found"]),
        "recall": ratio(counts["right"], counts["gold"]),
        "typed_precision": ratio(counts["typed_right"], counts["found"]),
        "typed_recall": ratio(counts["typed_right"], counts["gold"]),
        "unlisted": counts["unlisted"],
        "unlisted_recall": ratio(counts["unlisted_found"], counts["unlisted"]),
        "misses": misses,
    }


def timing(cases: list[Case], rounds: int = 5) -> dict:
    """Microseconds per memory, best of `rounds` over every sentence, and per language (jieba's
    dictionary loaded first; its first load is reported apart)."""
    from memoryapp.graph.entities import extract_entities

    load_started = time.perf_counter()
    extract_entities("我在杭州")
    first = time.perf_counter() - load_started

    def best(texts: list[str]) -> float:
        fastest = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            for text in texts:
                extract_entities(text)
            fastest = min(fastest, time.perf_counter() - started)
        return fastest / len(texts)

    per = best([c.text for c in cases])
    return {
        "memories": len(cases),
        "us_per_memory": round(per * 1e6, 1),
        "memories_per_second": int(1 / per),
        "us_per_memory_by_language": {
            language: round(best([c.text for c in cases if c.language == language]) * 1e6, 1)
            for language in dict.fromkeys(c.language for c in cases)
        },
        "first_call_s": round(first, 2),
    }


def locomo_speed(limit: int = 2000) -> dict | None:
    """Time and entities per turn on LoCoMo's dev turns (English chat written apart from this project; read
    only, never tuned or trained on), or None without the data."""
    from memoryapp.graph.entities import extract_entities

    from .dataset import load

    if not runtime.LOCOMO_DATA.exists():
        return None
    turns = [turn.content for sample in load(runtime.LOCOMO_DATA) for turn in sample.turns][:limit]
    started = time.perf_counter()
    found = sum(len(extract_entities(text)) for text in turns)
    spent = time.perf_counter() - started
    return {
        "turns": len(turns),
        "us_per_turn": round(spent / len(turns) * 1e6, 1),
        "entities_per_turn": round(found / len(turns), 2),
    }


THRESHOLDS = (0.8, 0.85, 0.9, 0.95)


def resolution(use_embedder: bool, splits: list[str]) -> dict:
    """Per split: resolution by names alone and with the embedder's cosine."""
    from memoryapp.graph.entities import resolve

    embed = None
    if use_embedder:
        from django.conf import settings

        from memoryapp.providers.embeddings import get_embedder

        embedder = get_embedder()
        cache: dict[str, list[float]] = {}

        def cached(texts: list[str]) -> list[list[float]]:
            missing = [t for t in dict.fromkeys(texts) if t not in cache]
            if missing:
                cache.update(zip(missing, embedder.embed(missing)))
            return [cache[t] for t in texts]

        embed = cached

    def decide(cases, threshold: float | None) -> dict:
        counts = dict.fromkeys(("right", "right_merges", "wrong_merges", "missed_merges"), 0)
        errors = []
        for case in cases:
            got = resolve([case.name], case.known, embed=embed if threshold else None, threshold=threshold or 1.0)[0]
            counts["right"] += got.match == case.same_as
            counts["right_merges"] += got.match is not None and got.match == case.same_as
            counts["wrong_merges"] += got.match is not None and got.match != case.same_as
            counts["missed_merges"] += got.match is None and case.same_as is not None
            if got.match != case.same_as:
                errors.append(f"{case.name} -> {got.match} ({got.how}, gold {case.same_as})")
        return {**counts, "accuracy": round(counts["right"] / len(cases), 4), "errors": errors}

    out = {}
    for split in splits:
        cases = load_resolution_cases(split)
        part = {
            "cases": len(cases),
            "same": sum(c.same_as is not None for c in cases),
            "names_only": decide(cases, None),
        }
        if embed is not None:
            part["embedder"] = settings.EMBEDDING_MODEL
            part["with_embedding"] = {str(t): decide(cases, t) for t in THRESHOLDS}
        part["sha256"] = hashlib.sha256((CASES_DIR / "resolution" / f"{split}.jsonl").read_bytes()).hexdigest()
        out[split] = part
    return out


def run(args: argparse.Namespace) -> dict:
    _setup()
    from memoryapp.graph.entities import extract_entities

    started = time.perf_counter()
    extract_entities("我在杭州")  # loads jieba's dictionary
    first_call = round(time.perf_counter() - started, 2)

    result: dict = {
        "benchmark": "bench.entities",
        "goal": {"precision": GOAL, "recall": GOAL},
        "sha256": {split: split_sha256(split) for split in args.split},
        "by_split": {},
    }
    every_case: list[Case] = []
    for split in args.split:
        cases = load_cases(split)
        every_case += cases
        predictions = [[(e.name, e.type.value) for e in extract_entities(c.text)] for c in cases]
        part = {"by_language": {}}
        for language in sorted({c.language for c in cases}, key=("en", "zh", "mixed").index):
            chosen = [(c, p) for c, p in zip(cases, predictions) if c.language == language]
            part["by_language"][language] = score([c for c, _ in chosen], [p for _, p in chosen])
        part["all"] = score(cases, predictions)
        result["by_split"][split] = part
    headline = "holdout" if "holdout" in args.split else args.split[-1]
    result["headline_split"] = headline
    result["by_language"] = {
        language: {k: s[k] for k in ("precision", "recall", "typed_precision", "typed_recall")}
        for language, s in result["by_split"][headline]["by_language"].items()
    }
    result["timing"] = {**timing(every_case), "first_call_s": first_call}
    result["resolution"] = resolution(not args.no_embedder, args.split)
    result["locomo_turns"] = locomo_speed()
    return result


def print_summary(result: dict) -> None:
    print(f"{'':14} {'n':>4} {'gold':>5} {'prec':>6} {'recall':>6} {'typed P':>7} {'typed R':>7} {'unlisted R':>10}")
    for split, part in result["by_split"].items():
        for language, s in [*part["by_language"].items(), ("all", part["all"])]:
            print(
                f"{split + ' ' + language:14} {s['sentences']:4d} {s['gold']:5d} {s['precision']:6.3f} "
                f"{s['recall']:6.3f} {s['typed_precision']:7.3f} {s['typed_recall']:7.3f} "
                f"{s['unlisted_recall'] or 0:10.3f}"
            )
    t = result["timing"]
    print(
        f"time: {t['us_per_memory']} us per memory ({t['memories_per_second']}/s over {t['memories']}; "
        f"first call {t['first_call_s']} s, loading jieba); by language: "
        + ", ".join(f"{k} {v} us" for k, v in t["us_per_memory_by_language"].items())
    )
    if result.get("locomo_turns"):
        lo = result["locomo_turns"]
        print(
            f"LoCoMo dev turns: {lo['us_per_turn']} us per turn, {lo['entities_per_turn']} entities per turn "
            f"({lo['turns']} turns)"
        )
    for split, part in result["resolution"].items():
        print_resolution(split, part)


def print_resolution(split: str, r: dict) -> None:
    rows = [("names only", r["names_only"])] + [(f"cosine >= {t}", d) for t, d in r.get("with_embedding", {}).items()]
    print(
        f"resolution, {split} ({r['cases']} names, {r['same']} already known"
        f"{', embedder ' + r['embedder'] if 'embedder' in r else ''}):"
    )
    for label, d in rows:
        print(
            f"  {label:16} accuracy {d['accuracy']:.3f}  right merges {d['right_merges']:2d}  "
            f"wrong merges {d['wrong_merges']:2d}  missed {d['missed_merges']:2d}"
        )


def print_misses(result: dict, count: int) -> None:
    for part in result["by_split"].values():
        for miss in part["all"]["misses"][:count]:
            print(f"{miss['id']} {miss['text']}  {' '.join(miss['errors'])}")
    for split, part in result["resolution"].items():
        for error in part["names_only"]["errors"][:count]:
            print(f"resolution {split}, names only: {error}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.entities", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    parser.add_argument("--json", type=Path, help="write the results here (bench/results/entities.json)")
    parser.add_argument("--no-embedder", action="store_true", help="resolution by names only")
    parser.add_argument(
        "--show-misses", type=int, default=0, metavar="N", help="print N sentences with errors per split"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.entities", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
