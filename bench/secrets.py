"""How many written secrets the write path would store, and how many ordinary sentences it refuses.

    python -m bench.secrets [--split train dev holdout] [--json OUT] [--show-misses N]

Each case of bench/secret_cases/<split>/*.json is offered to the write path's validation as a new memory's
content (memoryapp/engine/memories/validation.py: the API, the pages, import and the engine's writes all
pass it; extraction drops what the same detector flags before that). `stored`: secrets it accepted (goal
0); `over_blocked_rate`: the share of ordinary sentences and near misses it refused (goal at most 3 %).
`locomo`: how many of LoCoMo's dev turns (English chat written apart from this project, where present) it
would refuse, a second yardstick of ordinary text. No database: the check is pure. `secrets_result()` is also what bench.extraction reports as `secrets`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from . import runtime

CASES_DIR = runtime.REPO / "bench" / "secret_cases"
SPLITS = ("train", "dev", "holdout")
MEASURED = ("dev", "holdout")  # train is what the rules were written against


@dataclass(frozen=True)
class Outcome:
    case_id: str
    split: str
    language: str
    text: str
    secret: bool
    kind: str
    refused: str  # the refusal the user would see; "" when it would be stored


def load_cases(split: str) -> list[dict]:
    return [
        case for path in sorted((CASES_DIR / split).glob("*.json")) for case in json.loads(path.read_text())["cases"]
    ]


def split_sha256(split: str) -> str:
    digest = hashlib.sha256()
    for path in sorted((CASES_DIR / split).glob("*.json")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _refusal(text: str) -> str:
    from memoryapp.engine.errors import MemoryValidationError
    from memoryapp.engine.memories.validation import MemoryFields, parse

    try:
        parse(MemoryFields, {"content": text})
    except MemoryValidationError as exc:
        return exc.message
    return ""


def _setup() -> None:
    """Settings for gettext and the validation rules; no servers (the check never touches storage)."""
    import django
    from django.conf import settings

    if not settings.configured:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryapp.settings")
        os.environ.setdefault("MEMORYAPP_VAR_DIR", str(runtime.BENCH_VAR_DIR))
        django.setup()


def measure(splits: tuple[str, ...] = MEASURED) -> list[Outcome]:
    _setup()
    return [
        Outcome(case["id"], split, case["language"], case["text"], case["secret"], case["type"], _refusal(case["text"]))
        for split in splits
        for case in load_cases(split)
    ]


def summarise(outcomes: list[Outcome]) -> dict:
    secrets = [o for o in outcomes if o.secret]
    ordinary = [o for o in outcomes if not o.secret]
    blocked = sum(1 for o in ordinary if o.refused)
    return {
        "cases": len(outcomes),
        "secrets": len(secrets),
        "ordinary": len(ordinary),
        "stored": sum(1 for o in secrets if not o.refused),
        "over_blocked": blocked,
        "over_blocked_rate": round(blocked / len(ordinary), 4) if ordinary else None,
    }


def _by(outcomes: list[Outcome], attribute: str) -> dict:
    keys = dict.fromkeys(getattr(o, attribute) for o in outcomes)
    return {key: summarise([o for o in outcomes if getattr(o, attribute) == key]) for key in keys}


def locomo_blocked() -> dict | None:
    """LoCoMo's dev turns the check would refuse (None without the data)."""
    from .dataset import load

    if not runtime.LOCOMO_DATA.exists():
        return None
    turns = [turn.content for sample in load(runtime.LOCOMO_DATA) for turn in sample.turns]
    blocked = [text for text in turns if _refusal(text)]
    return {
        "turns": len(turns),
        "blocked": len(blocked),
        "blocked_rate": round(len(blocked) / len(turns), 4),
        "examples": blocked[:5],
    }


def secrets_result(splits: tuple[str, ...] = MEASURED) -> dict:
    """`{"stored": n, "over_blocked_rate": x, ...}` over `splits`, then per split and language."""
    outcomes = measure(splits)
    return {
        **summarise(outcomes),
        "by_split": {
            split: {**summarise(group), "by_language": _by(group, "language")}
            for split in splits
            if (group := [o for o in outcomes if o.split == split])
        },
        "by_type": _by([o for o in outcomes if o.secret], "kind"),
        "sha256": {split: split_sha256(split) for split in splits},
        "locomo": locomo_blocked(),
        "misses": [
            {"id": o.case_id, "text": o.text, "secret": o.secret, "refused": o.refused}
            for o in outcomes
            if o.secret != bool(o.refused)
        ],
    }


def secrets_summary(splits: tuple[str, ...] = MEASURED) -> dict:
    """What bench.extraction reports as `secrets`: stored and over_blocked_rate, overall and per split and language."""
    full = secrets_result(tuple(split for split in splits if split in SPLITS) or MEASURED)
    return {
        "stored": full["stored"],
        "over_blocked_rate": full["over_blocked_rate"],
        "by_split": {
            split: {
                "stored": part["stored"],
                "over_blocked_rate": part["over_blocked_rate"],
                "by_language": {
                    language: {"stored": s["stored"], "over_blocked_rate": s["over_blocked_rate"]}
                    for language, s in part["by_language"].items()
                },
            }
            for split, part in full["by_split"].items()
        },
    }


def embedding_baseline(seed: int = 0) -> dict:
    """The trained alternative the rules were measured against: logistic regression on the default embedder's
    vectors, fit on train, scored on dev at 0.5 and at the lowest score a train secret got (needs the train
    extra's scikit-learn). The vectors hear the topic (a PIN) more than whether a value follows it."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from memoryapp.providers.embeddings import get_embedder

    _setup()
    embedder = get_embedder()

    def split(name: str):
        cases = load_cases(name)
        return np.array(embedder.embed([c["text"] for c in cases])), np.array([c["secret"] for c in cases])

    (x_train, y_train), (x_dev, y_dev) = split("train"), split("dev")
    model = LogisticRegression(C=10, max_iter=5000, class_weight="balanced", random_state=seed).fit(x_train, y_train)
    scores = model.predict_proba(x_dev)[:, 1]
    result = {}
    for name, threshold in (
        ("0.5", 0.5),
        ("lowest_train_secret", float(model.predict_proba(x_train)[y_train, 1].min())),
    ):
        refused = scores >= threshold
        result[name] = {
            "threshold": round(threshold, 3),
            "stored": int((y_dev & ~refused).sum()),
            "over_blocked_rate": round(float((~y_dev & refused).sum() / (~y_dev).sum()), 4),
        }
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.secrets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(MEASURED))
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N wrong decisions")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also fit the embedding baseline on train and score it on dev (needs scikit-learn)",
    )
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict:
    result = {"benchmark": "bench.secrets", "splits": args.split, **secrets_result(tuple(args.split))}
    if args.baseline:
        result["embedding_baseline_dev"] = embedding_baseline()
    return result


def print_summary(result: dict) -> None:
    def row(label: str, s: dict) -> str:
        rate = "-" if s["over_blocked_rate"] is None else f"{s['over_blocked_rate']:.1%}"
        return (
            f"{label:18} {s['cases']:5d} {s['secrets']:7d} {s['stored']:6d} {s['ordinary']:8d} "
            f"{s['over_blocked']:7d} {rate:>7}"
        )

    print(f"{'':18} {'cases':>5} {'secrets':>7} {'stored':>6} {'ordinary':>8} {'blocked':>7} {'rate':>7}")
    print(row("overall", result))
    for split, part in result["by_split"].items():
        print(row(split, part))
        for language, s in part["by_language"].items():
            print(row(f"  {language}", s))
    for name, s in result.get("embedding_baseline_dev", {}).items():
        print(
            f"embedding baseline on dev, threshold {name} ({s['threshold']}): stored {s['stored']}, "
            f"over-blocked {s['over_blocked_rate']:.1%}"
        )
    if result["locomo"]:
        print(f"LoCoMo dev turns refused: {result['locomo']['blocked']} of {result['locomo']['turns']}")


def print_misses(result: dict, count: int) -> None:
    for miss in result["misses"][:count]:
        what = "stored secret" if miss["secret"] else "blocked"
        print(f"{miss['id']} {what}: {miss['text']}" + (f"  ({miss['refused']})" if miss["refused"] else ""))


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.secrets", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
