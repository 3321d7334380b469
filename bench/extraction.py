"""What an extractor learns from a chat window: the real extraction path, on labelled bilingual windows.

    python -m bench.extraction [--split dev holdout] [--set windows changes] [--extractor offline learned openai]
                               [--json OUT] [--show-misses N] [--locomo-data PATH] [--no-locomo] [--plot SVG]

Every window (bench/extraction_cases/<split>/windows.json) becomes a fresh user holding the window's
`existing` memories and a conversation holding its messages; the window is extracted by
`engine.learning.extraction.extract` exactly as the worker does (candidates, sensitive-data filter, nearest
memories, decisions, one transaction), and the memories it wrote are compared with the labels
(bench/extraction_metrics.py). Each split's files are sets (`--set`): `windows`, the first written windows,
and holdout `changes`, stated changes and their look-alikes (en, zh and `cross`: the old memory in the other
language), reported apart under `by_set`.

Fidelity (`fidelity`, bench/fidelity.py): whether each memory the no-model extractors make from the written
fidelity cases is the user's own words with every number, time, code, URL and name kept.

LoCoMo (--locomo-data, default the dev file): is each turn worth remembering, at turn level
(bench/extraction_locomo.py), for `learned` (a PR curve: pr_auc, recall_at_p80, precision_at_r80,
observation_coverage at the shipped threshold; drawn to docs/img/extraction_pr_locomo.svg) and `offline`
(one point). Each extractor's `by_source` holds `written` (per split and language) and `locomo`.

Extractors: `offline`, no model (`llm=None`) under `learned.rules_only()`: the hand-written rules;
`learned`, no model: the trained default (engine/learned/extraction.py); `openai`, the OpenAI-compatible client
against the scripted OpenAI-protocol server (tests/support/llm_server.py) answering each window with its
labels. The second measures the plumbing (prompt building, parsing, validation, decisions applied), not a
model: a perfect model's answers should come out whole.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path

from . import runtime
from .extraction_data import SPLITS, Expected, Window, load_windows
from .extraction_metrics import Produced, WindowOutcome, grouped, match, summarise
from .secrets import secrets_summary

EXTRACTORS = ("offline", "learned", "openai")
WRITTEN_METRICS = (
    "windows",
    "precision",
    "recall",
    "kind_accuracy",
    "detail_retention",
    "update_detection",
    "wrong_replacements",
    "update_or_asked",
    "questions",
)
logger = logging.getLogger("bench.extraction")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.extraction", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    parser.add_argument(
        "--set", nargs="+", dest="sets", metavar="SET", help="only these files of each split (default: all)"
    )
    parser.add_argument("--extractor", nargs="+", choices=EXTRACTORS, default=list(EXTRACTORS))
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N imperfect windows")
    parser.add_argument(
        "--locomo-data",
        type=Path,
        default=runtime.LOCOMO_DATA,
        help="turn-level extraction on a file in LoCoMo's format (measured only)",
    )
    parser.add_argument("--no-locomo", action="store_true", help="skip the LoCoMo turn-level measure")
    parser.add_argument(
        "--plot",
        type=Path,
        default=runtime.REPO / "docs" / "img" / "extraction_pr_locomo.svg",
        help="where the LoCoMo PR curve is drawn",
    )
    return parser.parse_args(argv)


def _said(window: Window, words: tuple[str, ...]) -> str:
    """The user message that holds most of `words`: what a model that keeps the user's words would write."""
    said = [text for role, text in window.messages if role == "user"]
    return max(said, key=lambda text: sum(w.casefold() in text.casefold() for w in words))[:300]


def _scripted_answers(window: Window, server, key_of_id: dict[str, int]) -> None:
    """What a perfect model would answer for this window: its labels as candidates, then decisions."""
    from memoryapp.engine.llm.candidates import EXTRACT_MARKER
    from memoryapp.engine.llm.decisions import DECIDE_MARKER

    server.state.queues.clear()
    said: dict[str, Expected] = {}  # one candidate per distinct wording, as extraction keeps them
    for x in window.expected:
        said.setdefault(x.text or _said(window, x.must_contain), x)
    server.script(
        EXTRACT_MARKER,
        json.dumps(
            {
                "candidates": [
                    {"content": content, "kind": x.kind, "importance": 0.7, "confidence": 0.9}
                    for content, x in said.items()
                ]
            }
        ),
    )
    server.script(
        DECIDE_MARKER,
        json.dumps(
            {
                "decisions": [
                    {
                        "candidate_index": i,
                        "action": "UPDATE" if x.supersedes else "ADD",
                        "target_id": key_of_id[x.supersedes] if x.supersedes else None,
                        "reason": "labelled",
                    }
                    for i, x in enumerate(said.values())
                ]
            }
        ),
    )


def run_window(window: Window, llm, server=None) -> WindowOutcome:
    from conversations.models import Conversation, Message
    from memoryapp.engine.learning import extraction
    from memoryapp.engine.memories.write import add_memory
    from memoryapp.models import Memory
    from memoryapp.providers.llm.errors import ProviderError

    user = runtime.fresh_user(f"extract-{window.id}")
    key_of: dict[int, str] = {}
    for item in window.existing:
        key_of[add_memory(user, item.content, kind=item.kind).memory.pk] = item.key
    if server is not None:
        _scripted_answers(window, server, {key: pk for pk, key in key_of.items()})
    conversation = Conversation.objects.create(user=user, title=window.id)
    ids = [
        Message.objects.create(conversation=conversation, role=role, content=text).pk for role, text in window.messages
    ]
    run, _ = extraction.queue_run(conversation, ids)
    extraction.claim(run)
    try:
        extraction.extract(run, llm=llm)
    except ProviderError as exc:  # the run failed, as it would in the worker: the window learnt nothing
        logger.warning("window %s: %s", window.id, exc)
    learnt = Memory.objects.filter(user=user, source_conversation=conversation).prefetch_related(
        "supersedes", "questions_as_newer"
    )
    produced = tuple(
        Produced(
            m.content,
            m.kind,
            tuple(key_of[s.pk] for s in m.supersedes.all() if s.pk in key_of),
            tuple(key_of[q.older_id] for q in m.questions_as_newer.all() if q.older_id in key_of),
        )
        for m in learnt.order_by("id")
    )
    return WindowOutcome(
        window.id, window.split, window.language, window.category, window.expected, produced, window.source
    )


def _extractor(name: str, stack):
    if name == "offline":
        from memoryapp.engine.learned.model import rules_only

        stack.enter_context(rules_only())  # the hand-written rules (engine/llm/defaults.py)
        return None, None
    if name == "learned":
        return None, None  # no model: the trained default (engine/learned/extraction.py)
    from memoryapp.providers.llm.openai_compat import OpenAICompatibleLLM
    from tests.support.llm_server import ScriptedLLMServer

    server = stack.enter_context(ScriptedLLMServer())
    return OpenAICompatibleLLM(base_url=server.url, api_key="bench", model="scripted-model", timeout=10), server


def run(args: argparse.Namespace) -> dict:
    from contextlib import ExitStack

    os.environ.setdefault("GRAPH_BACKEND", "off")
    runtime.setup_django()
    windows = [w for w in load_windows(tuple(args.split)) if not args.sets or w.source in args.sets]
    result: dict = {"benchmark": "bench.extraction", "splits": args.split, "windows": len(windows), "by_extractor": {}}
    for name in args.extractor:
        with ExitStack() as stack:  # one per extractor: `offline`'s rules_only() ends with it
            llm, server = _extractor(name, stack)
            started = time.perf_counter()
            outcomes = [run_window(window, llm, server) for window in windows]
            logger.info("%s: %d windows in %.1f s", name, len(outcomes), time.perf_counter() - started)
            result["by_extractor"][name] = {
                "overall": summarise(outcomes),
                "by_language": grouped(outcomes, "language"),
                "by_category": grouped(outcomes, "category"),
                "by_split": {
                    split: {"overall": summarise(group), "by_language": grouped(group, "language")}
                    for split in args.split
                    if (group := [o for o in outcomes if o.split == split])
                },
                "by_set": {
                    f"{split}/{source}": {
                        "overall": summarise(group),
                        "by_language": grouped(group, "language"),
                        "by_category": grouped(group, "category"),
                    }
                    for split in args.split
                    for source in sorted({o.source for o in outcomes})
                    if (group := [o for o in outcomes if o.split == split and o.source == source])
                },
                "by_source": {
                    "written": {
                        split: {
                            language: {k: m[k] for k in WRITTEN_METRICS} for language, m in part["by_language"].items()
                        }
                        for split, part in _by_split(outcomes, args.split).items()
                    }
                },
                "windows": [
                    {
                        "id": o.window_id,
                        "language": o.language,
                        "category": o.category,
                        "expected": [[x.kind, list(x.must_contain), x.supersedes] for x in o.expected],
                        "produced": [[p.kind, p.content, list(p.supersedes), list(p.asked)] for p in o.produced],
                    }
                    for o in outcomes
                ],
            }
    from .fidelity import measure as measure_fidelity

    if no_model := tuple(name for name in args.extractor if name in ("offline", "learned")):
        result["fidelity"] = measure_fidelity(no_model)
    result["secrets"] = secrets_summary(tuple(args.split))  # the written secret cases, through the write path's check
    if not args.no_locomo and args.locomo_data.exists():
        from .extraction_locomo import measure
        from .plots import plot_extraction_pr

        turns = measure(args.locomo_data)
        for name in ("offline", "learned"):
            if name in result["by_extractor"] and name in turns:
                result["by_extractor"][name]["by_source"]["locomo"] = {"data": turns["data"], **turns[name]}
        if "curve" in turns:
            result["locomo_curve"] = turns["curve"]
            plot_extraction_pr(turns, args.plot)
    return result


def _by_split(outcomes, splits) -> dict:
    return {
        split: {"by_language": grouped(group, "language")}
        for split in splits
        if (group := [o for o in outcomes if o.split == split])
    }


def _fmt(value) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def print_summary(result: dict) -> None:
    names = (
        "precision",
        "recall",
        "kind_accuracy",
        "detail_retention",
        "update_detection",
        "wrong_replacements",
        "update_or_asked",
        "questions",
    )
    print(f"{'':28} {'windows':>7} " + " ".join(f"{n[:9]:>9}" for n in names))
    for extractor, values in result["by_extractor"].items():

        def row(label: str, s: dict) -> str:
            return f"{label:28} {s['windows']:7d} " + " ".join(f"{_fmt(s[n]):>9}" for n in names)

        print(row(f"{extractor}", values["overall"]))
        for name, part in values["by_set"].items():
            for language, s in part["by_language"].items():
                print(row(f"  {name} {language}", s))
        for category, s in values["by_category"].items():
            print(row(f"  category {category}", s))
        if locomo := values["by_source"].get("locomo"):
            print(f"  LoCoMo turns: {json.dumps({k: v for k, v in locomo.items() if k != 'data'})}")
        if fidelity := result.get("fidelity", {}).get(extractor):
            print(
                f"  fidelity: {json.dumps({k: v['fidelity'] for k, v in fidelity['by_language'].items()})}"
                f" (learned {fidelity['overall']['learned']})"
            )


def print_misses(result: dict, count: int) -> None:
    for extractor, values in result["by_extractor"].items():
        shown = 0
        for w in values["windows"]:
            expected = tuple(Expected(k, tuple(words), sup) for k, words, sup in w["expected"])
            produced = tuple(Produced(c, k, tuple(s)) for k, c, s, *_asked in w["produced"])
            pairs = match(expected, produced)
            if all(p is not None for _, p in pairs) and len(produced) == len(expected):
                continue
            print(f"[{extractor}] {w['id']} {w['category']}: expected {w['expected']} got {w['produced']}")
            shown += 1
            if shown >= count:
                break


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.extraction", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
