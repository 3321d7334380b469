"""Whether a memory keeps the user's words: the written fidelity cases (bench/fidelity_cases/cases.json).

    python -m bench.fidelity [--extractor offline learned] [--json OUT] [--show-misses N]

Each case is one user message; the extractor with no model (`offline`: the hand-written rules under
`learned.rules_only()`; `learned`: the trained default) proposes memories from it, as extraction's first
step does for a chat, and every memory is checked:
- `verbatim`: it is a stretch of the message as written (whitespace collapsed, a final full stop dropped);
- `kept`: the memories of the case together hold each of its `keep` values exactly ("5:15", "U.K.").
`fidelity` is the share of cases with a memory where every memory is verbatim and every value kept;
`learned` the share of cases with any memory (a case with none keeps nothing, and is counted there).
bench.extraction reports the same figures beside its windows.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from . import runtime

CASES = Path(__file__).resolve().parent / "fidelity_cases" / "cases.json"
EXTRACTORS = ("offline", "learned")


@dataclass(frozen=True)
class Case:
    id: str
    language: str
    category: str
    text: str
    keep: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    case: Case
    memories: tuple[str, ...]

    @property
    def verbatim(self) -> bool:
        said = _plain(self.case.text)
        return all(_plain(m).rstrip(".。") in said for m in self.memories)

    @property
    def kept(self) -> bool:
        joined = "\n".join(self.memories)
        return all(value in joined for value in self.case.keep)

    @property
    def faithful(self) -> bool:
        return bool(self.memories) and self.verbatim and self.kept


def _plain(text: str) -> str:
    return " ".join(text.split())


def load_cases(path: Path = CASES) -> list[Case]:
    return [
        Case(c["id"], c["language"], c["category"], c["text"], tuple(c["keep"]))
        for c in json.loads(path.read_text())["cases"]
    ]


def extract(cases: list[Case], extractor: str) -> list[Outcome]:
    from contextlib import nullcontext

    from memoryapp.engine.learned.model import rules_only
    from memoryapp.engine.llm.candidates import extract_candidates

    with rules_only() if extractor == "offline" else nullcontext():
        return [
            Outcome(
                case,
                tuple(c.content for c in extract_candidates([{"role": "user", "content": case.text}], None).candidates),
            )
            for case in cases
        ]


def summarise(outcomes: list[Outcome]) -> dict:
    with_memory = [o for o in outcomes if o.memories]
    share = lambda part, whole: round(len(part) / len(whole), 4) if whole else None  # noqa: E731
    return {
        "cases": len(outcomes),
        "learned": share(with_memory, outcomes),
        "fidelity": share([o for o in with_memory if o.faithful], with_memory),
        "verbatim": share([o for o in with_memory if o.verbatim], with_memory),
        "values_kept": share([o for o in with_memory if o.kept], with_memory),
    }


def measure(extractors: tuple[str, ...] = EXTRACTORS, path: Path = CASES) -> dict:
    """Per extractor: overall, by language and by category."""
    cases = load_cases(path)
    result: dict = {}
    for name in extractors:
        outcomes = extract(cases, name)
        by: dict[str, dict[str, list[Outcome]]] = {"language": defaultdict(list), "category": defaultdict(list)}
        for o in outcomes:
            by["language"][o.case.language].append(o)
            by["category"][o.case.category].append(o)
        result[name] = {
            "overall": summarise(outcomes),
            "by_language": {k: summarise(v) for k, v in sorted(by["language"].items())},
            "by_category": {k: summarise(v) for k, v in sorted(by["category"].items())},
            "misses": [
                {"id": o.case.id, "text": o.case.text, "keep": list(o.case.keep), "memories": list(o.memories)}
                for o in outcomes
                if not o.faithful
            ],
        }
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.fidelity", description=__doc__.split("\n\n")[0])
    parser.add_argument("--extractor", nargs="+", choices=EXTRACTORS, default=list(EXTRACTORS))
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N cases not kept whole")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict:
    runtime.setup_django()
    return {
        "benchmark": "bench.fidelity",
        "cases_file": str(CASES.relative_to(runtime.REPO)),
        "by_extractor": measure(tuple(args.extractor)),
    }


def print_summary(result: dict) -> None:
    names = ("cases", "learned", "fidelity", "verbatim", "values_kept")
    print(f"{'':22} " + " ".join(f"{n:>11}" for n in names))
    for extractor, values in result["by_extractor"].items():
        for label, s in [(extractor, values["overall"])] + [(f"  {k}", v) for k, v in values["by_language"].items()]:
            print(f"{label:22} " + " ".join(f"{'-' if s[n] is None else s[n]:>11}" for n in names))


def print_misses(result: dict, count: int) -> None:
    for extractor, values in result["by_extractor"].items():
        for miss in values["misses"][:count]:
            print(f"[{extractor}] {miss['id']}: {miss['text']!r} keep {miss['keep']} -> {miss['memories']}")


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.fidelity", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
