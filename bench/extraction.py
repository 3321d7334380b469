"""What an extractor learns from a chat window: the real extraction path, on labelled bilingual windows.

    python -m bench.extraction [--split dev holdout] [--extractor offline openai] [--json OUT] [--show-misses N]

Every window (bench/extraction_cases/<split>/windows.json) becomes a fresh user holding the window's
`existing` memories and a conversation holding its messages; the window is extracted by
`engine.learning.extraction.extract` exactly as the worker does (candidates, sensitive-data filter, nearest
memories, decisions, one transaction), and the memories it wrote are compared with the labels
(bench/extraction_metrics.py).

Extractors: `offline`, no model (`llm=None`): the engine's rule-based default; `openai`, the OpenAI-compatible client
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
from .extraction_data import SPLITS, Window, load_windows
from .extraction_metrics import Produced, WindowOutcome, grouped, match, summarise

EXTRACTORS = ("offline", "openai")
logger = logging.getLogger("bench.extraction")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.extraction", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    parser.add_argument("--extractor", nargs="+", choices=EXTRACTORS, default=list(EXTRACTORS))
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N imperfect windows")
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
    server.script(EXTRACT_MARKER, json.dumps({"candidates": [
        {"content": _said(window, x.must_contain), "kind": x.kind, "importance": 0.7, "confidence": 0.9}
        for x in window.expected]}))
    server.script(DECIDE_MARKER, json.dumps({"decisions": [
        {"candidate_index": i, "action": "UPDATE" if x.supersedes else "ADD",
         "target_id": key_of_id[x.supersedes] if x.supersedes else None, "reason": "labelled"}
        for i, x in enumerate(window.expected)]}))


def run_window(window: Window, llm, server=None) -> WindowOutcome:
    from conversations.models import Conversation, Message
    from memoryapp.engine.learning import extraction
    from memoryapp.engine.memories.write import add_memory
    from memoryapp.models import Memory

    user = runtime.fresh_user(f"extract-{window.id}")
    key_of: dict[int, str] = {}
    for item in window.existing:
        key_of[add_memory(user, item.content, kind=item.kind).memory.pk] = item.key
    if server is not None:
        _scripted_answers(window, server, {key: pk for pk, key in key_of.items()})
    conversation = Conversation.objects.create(user=user, title=window.id)
    ids = [Message.objects.create(conversation=conversation, role=role, content=text).pk
           for role, text in window.messages]
    run, _ = extraction.queue_run(conversation, ids)
    extraction.claim(run)
    extraction.extract(run, llm=llm)
    learnt = Memory.objects.filter(user=user, source_conversation=conversation).prefetch_related("supersedes")
    produced = tuple(Produced(m.content, m.kind, tuple(key_of[s.pk] for s in m.supersedes.all() if s.pk in key_of))
                     for m in learnt.order_by("id"))
    return WindowOutcome(window.id, window.split, window.language, window.category, window.expected, produced)


def _extractor(name: str, stack):
    if name == "offline":
        return None, None  # no model: the engine's default (engine/llm/defaults.py)
    from memoryapp.providers.llm.openai_compat import OpenAICompatibleLLM
    from tests.support.llm_server import ScriptedLLMServer

    server = stack.enter_context(ScriptedLLMServer())
    return OpenAICompatibleLLM(base_url=server.url, api_key="bench", model="scripted-model", timeout=10), server


def run(args: argparse.Namespace) -> dict:
    from contextlib import ExitStack

    os.environ.setdefault("GRAPH_BACKEND", "off")
    runtime.setup_django()
    windows = load_windows(tuple(args.split))
    result: dict = {"benchmark": "bench.extraction", "splits": args.split, "windows": len(windows),
                    "by_extractor": {}}
    with ExitStack() as stack:
        for name in args.extractor:
            llm, server = _extractor(name, stack)
            started = time.perf_counter()
            outcomes = [run_window(window, llm, server) for window in windows]
            logger.info("%s: %d windows in %.1f s", name, len(outcomes), time.perf_counter() - started)
            result["by_extractor"][name] = {
                "overall": summarise(outcomes),
                "by_language": grouped(outcomes, "language"),
                "by_category": grouped(outcomes, "category"),
                "by_split": {split: {"overall": summarise(group), "by_language": grouped(group, "language")}
                             for split in args.split if (group := [o for o in outcomes if o.split == split])},
                "windows": [{"id": o.window_id, "language": o.language, "category": o.category,
                             "expected": [[x.kind, list(x.must_contain), x.supersedes] for x in o.expected],
                             "produced": [[p.kind, p.content, list(p.supersedes)] for p in o.produced]}
                            for o in outcomes],
            }
    return result


def _fmt(value) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def print_summary(result: dict) -> None:
    names = ("precision", "recall", "kind_accuracy", "detail_retention", "update_detection", "wrong_replacements")
    print(f"{'':28} {'windows':>7} " + " ".join(f"{n[:9]:>9}" for n in names))
    for extractor, values in result["by_extractor"].items():
        def row(label: str, s: dict) -> str:
            return f"{label:28} {s['windows']:7d} " + " ".join(f"{_fmt(s[n]):>9}" for n in names)

        print(row(f"{extractor}", values["overall"]))
        for split, part in values["by_split"].items():
            for language, s in part["by_language"].items():
                print(row(f"  {split} {language}", s))
        for category, s in values["by_category"].items():
            print(row(f"  category {category}", s))


def print_misses(result: dict, count: int) -> None:
    from .extraction_data import Expected

    for extractor, values in result["by_extractor"].items():
        shown = 0
        for w in values["windows"]:
            expected = tuple(Expected(k, tuple(words), sup) for k, words, sup in w["expected"])
            produced = tuple(Produced(c, k, tuple(s)) for k, c, s in w["produced"])
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
