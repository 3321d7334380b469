"""Where stated changes are lost end to end: each `update` window of a bench.extraction result, by cause.

    python -m bench.change_losses RESULT.json [RESULT.json ...] [--extractor learned] [--set changes]

Reads what bench.extraction wrote (`--json`: each window's expected and produced memories) and, for every
expected replacement, tells why it was or was not applied:
- `applied`: the statement replaced the memory it should;
- `asked`: it was kept beside the memory and the user asked whether it replaces it;
- `wrong_memory`: it replaced another one;
- `not_extracted`: no memory holds the statement's words;
- `not_a_neighbour`: the old memory is not among the nearest the decision sees (extraction.NEIGHBOURS,
  NEIGHBOUR_MIN_SIMILARITY);
- `other_slot`: engine/learned/slots.py says the two cannot be one slot;
- `model_declined`: the change model (and the rules it falls back on) kept both.
The last three are read again from the statement and the window's memories as the pipeline sees them
(the same embedder, the same neighbours), so the table can be made for an earlier run too.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from . import runtime
from .extraction_data import load_windows

CAUSES = ("applied", "asked", "wrong_memory", "not_extracted", "not_a_neighbour", "other_slot", "model_declined")


def _why_kept(statement: str, kind: str, target: str, existing: list[tuple[str, str]]) -> str:
    import numpy as np

    from memoryapp.engine.learned import changes
    from memoryapp.engine.learned.change_features import cosine
    from memoryapp.engine.learned.model import usable
    from memoryapp.engine.learned.slots import may_replace, slots_of
    from memoryapp.engine.learning.extraction import NEIGHBOUR_MIN_SIMILARITY, NEIGHBOURS, SLOT_NEIGHBOURS
    from memoryapp.engine.llm.defaults import rules_see_a_change
    from memoryapp.providers.embeddings import get_embedder

    vectors = np.asarray(get_embedder().embed([statement] + [content for content, _ in existing]))
    near = sorted(((cosine(vectors[0], v), i) for i, v in enumerate(vectors[1:])), reverse=True)
    shown = [i for similarity, i in near[:NEIGHBOURS] if similarity >= NEIGHBOUR_MIN_SIMILARITY]
    shown += [i for _, i in near if i not in shown and slots_of(statement) & slots_of(existing[i][0])][:SLOT_NEIGHBOURS]
    index = [content for content, _ in existing].index(target)
    if index not in shown:
        return "not_a_neighbour"
    if not may_replace(statement, target):
        return "other_slot"
    model = usable(changes.NAME)
    neighbours = [changes.Existing(existing[i][0], existing[i][1], vectors[1 + i]) for i in shown]
    verdict = changes.choose(model, statement, kind, vectors[0], neighbours, rules=rules_see_a_change)
    return "applied" if verdict.label == changes.REPLACES and shown[verdict.index] == index else "model_declined"


def causes(result: dict, extractor: str, sets: set[str] | None, show: set[str] = frozenset()) -> dict[str, Counter]:
    windows = {w.id: w for w in load_windows(("holdout", "dev"))}
    table: dict[str, Counter] = {}
    for item in result["by_extractor"][extractor]["windows"]:
        window = windows.get(item["id"])
        if window is None or (sets and window.source not in sets):
            continue
        existing = [(e.content, e.kind) for e in window.existing]
        content_of = {e.key: e.content for e in window.existing}
        for _kind, words, supersedes in item["expected"]:
            if not supersedes:
                continue
            said = [p for p in item["produced"] if all(w.casefold() in p[1].casefold() for w in words)]
            if not said:
                cause = "not_extracted"
            elif supersedes in said[0][2]:
                cause = "applied"
            elif supersedes in (said[0][3] if len(said[0]) > 3 else []):
                cause = "asked"
            elif said[0][2]:
                cause = "wrong_memory"
            else:
                cause = _why_kept(said[0][1], said[0][0], content_of[supersedes], existing)
                cause = "model_declined" if cause == "applied" else cause  # the pipeline saw it otherwise
            table.setdefault(window.language, Counter())[cause] += 1
            if cause in show:
                print(
                    f"{cause:15} {window.language:5} {' / '.join(p[1] for p in said) or words}  <-  {content_of[supersedes]}"
                )
    return table


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.change_losses", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="bench.extraction --json files")
    parser.add_argument("--extractor", default="learned")
    parser.add_argument("--set", nargs="+", dest="sets", help="only windows of these files (e.g. changes)")
    parser.add_argument(
        "--show", nargs="+", default=[], choices=CAUSES, help="print each expected change lost to these causes"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    runtime.setup_django()
    print(f"{'run':32} {'lang':6} " + " ".join(f"{c:>15}" for c in CAUSES))
    for path in args.results:
        table = causes(json.loads(path.read_text()), args.extractor, set(args.sets or []), set(args.show))
        for language, counts in sorted(table.items()):
            print(f"{path.name[:32]:32} {language:6} " + " ".join(f"{counts[c]:15d}" for c in CAUSES))


if __name__ == "__main__":
    main()
