"""How well the rules fill a chat's working memory without a model (memoryapp/engine/chat_state/rules.py).

    python -m bench.chat_state_rules [--show-misses]

Each line of bench/chat_state/{dev,holdout}.jsonl is a user message, the moment it was said, the chat's
entries so far (`kept`) and the entries it states (`expected`). Scored per slot: precision is the share of
written slots that are right, recall the share of stated slots written. A `task` may list the phrasings
that count as right. dev is what the rules were tuned on; holdout was written before them and is not
tuned on. No database: the rules are pure.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path

from memoryapp.engine.chat_state.rules import task_entries

CASES_DIR = Path(__file__).resolve().parent / "chat_state"
SPLITS = ("dev", "holdout")


def _same(key: str, got: object, expected: object) -> bool:
    if key == "task" and isinstance(expected, list):
        return any(_same(key, got, one) for one in expected)
    if isinstance(got, str) and isinstance(expected, str):
        return got.casefold().replace(" ", "") == expected.casefold().replace(" ", "")
    return got == expected


def score(split: str, show_misses: bool = False) -> dict:
    written = right = stated = 0
    for line in (CASES_DIR / f"{split}.jsonl").read_text().splitlines():
        case = json.loads(line)
        got = task_entries(case["message"], now=datetime.fromisoformat(case["now"]), kept=case["kept"])
        expected = case["expected"]
        hits = [key for key in got if key in expected and _same(key, got[key], expected[key])]
        written, right, stated = written + len(got), right + len(hits), stated + len(expected)
        if show_misses and (len(hits) != len(got) or len(hits) != len(expected)):
            print(f"  {case['message']}\n    got      {got}\n    expected {expected}")
    return {
        "split": split,
        "precision": round(right / written, 3) if written else 1.0,
        "recall": round(right / stated, 3) if stated else 1.0,
        "written": written,
        "right": right,
        "stated": stated,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    for split in args.split:
        result = score(split, args.show_misses)
        print(
            f"{split:8} precision {result['precision']:.3f}  recall {result['recall']:.3f}  "
            f"({result['right']} right of {result['written']} written, {result['stated']} stated)"
        )


if __name__ == "__main__":
    main()
