"""What the assistant is handed each chat turn: the real chat path, measured per language and case shape.

    python -m bench.chat [--split dev holdout] [--locomo N] [--rules] [--pad N] [--graph on off] [--json OUT]

Every persona (bench/chat_cases/<split>/*.json) becomes a fresh user with its memories; every case
becomes a conversation holding its history, and its message goes through `engine.chat.chat.start_turn`
(query building, the trained relevance model or, with --rules, the fixed gates of RECALL_CHAT, the
memory budget) exactly as a chat turn does. `--pad N` fills each store to N memories with synthetic ones. The memories that
reach the prompt are compared with the case's labels (bench/chat_metrics.py). `--locomo N` adds N
questions per LoCoMo dev conversation, asked after the conversation's last two turns.
The graph is off (GRAPH_BACKEND=off): its facts come from a model, which the benchmark does not run.
"""
from __future__ import annotations

import argparse
import logging
import os
import time
from datetime import timedelta
from pathlib import Path

from . import graph as graph_bench
from . import runtime
from .chat_data import EXTRA_SPLITS, SPLITS, ChatCase, Persona, load_personas, locomo_persona
from .chat_metrics import TurnOutcome, grouped, summarise

logger = logging.getLogger("bench.chat")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.chat", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS + EXTRA_SPLITS, default=list(SPLITS),
                        help="past: the time-travel cases (not in the default, whose figures stay comparable)")
    parser.add_argument("--locomo", type=int, default=20, metavar="N",
                        help="LoCoMo questions per dev conversation (0: none)")
    parser.add_argument("--locomo-data", type=Path, default=runtime.LOCOMO_DATA)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--pad", type=int, default=0, metavar="N",
                        help="pad each persona's store to N memories with synthetic ones (latency at scale)")
    parser.add_argument("--rules", action="store_true",
                        help="the hand-written gates instead of the trained relevance model (learned.rules_only)")
    graph_bench.add_argument(parser)
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N wrong turns per split")
    return parser.parse_args(argv)


def write_memories(persona: Persona, now, pad: int = 0):
    """A fresh user holding the persona's memories (and synthetic ones up to `pad`, keyed "#id": never
    needed); returns (user, memory id -> key)."""
    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput
    from memoryapp.models import MemorySettings

    from .ingest import embed_cached

    user = runtime.fresh_user(f"chat-{persona.name}")
    # No extraction: the benchmark measures what a turn is handed, not what it teaches.
    MemorySettings.objects.update_or_create(user=user, defaults={"extract_every_n_turns": 10_000})
    # Persona memories were learnt over the last three months, a few days apart.
    items = [MemoryInput(content=m.content, kind=m.kind, context=m.context,
                         valid_from=m.valid_from or now - timedelta(days=(index * 7) % 90))
             for index, m in enumerate(persona.memories)]
    vectors, _ = embed_cached([item.content for item in items], runtime.BENCH_VAR_DIR / "vectors")
    written = bulk_add(user.pk, items, embeddings=vectors)

    key_of: dict[int, str] = {}
    by_key = {}
    for memory, stored in zip(written, persona.memories):
        if memory is not None:
            key_of[memory.pk] = stored.key
            by_key[stored.key] = memory
    _link_versions(persona, by_key)
    if pad > len(written):
        _pad(user, pad - len(written))
    return user, key_of


def _pad(user, count: int) -> None:
    """Synthetic memories (bench/synthetic.py: other people's preferences, plans and purchases), their
    vectors a perturbed embedded pool, as bench.scale writes them."""
    import numpy as np

    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput

    from . import synthetic
    from .ingest import embed_cached

    pool = synthetic.base_sentences(300)
    pool_vectors = np.asarray(embed_cached(pool, runtime.BENCH_VAR_DIR / "vectors")[0], dtype=np.float32)
    rows = synthetic.memories(count, pool)
    vectors = synthetic.perturbed(pool_vectors, [index for _, index in rows]).tolist()
    bulk_add(user.pk, [MemoryInput(content=text) for text, _ in rows], embeddings=vectors)


def _link_versions(persona: Persona, by_key: dict) -> None:
    """A replaced memory ends where its newer version starts, linked as supersede_memory links them."""
    for stored in persona.memories:
        old, new = by_key.get(stored.key), by_key.get(stored.replaced_by)
        if old is not None and new is not None:
            old.valid_until = new.valid_from
            old.save(update_fields=["valid_until"])
            new.supersedes.add(old)


def run_case(user, persona: Persona, case: ChatCase, key_of: dict[int, str]) -> TurnOutcome:
    from conversations.models import Conversation, Message
    from memoryapp.engine.chat.chat import start_turn
    from memoryapp.engine.text import count_tokens

    conversation = Conversation.objects.create(user=user, title=case.id)
    Message.objects.bulk_create([
        Message(conversation=conversation, role=role, content=text, token_count=count_tokens(text))
        for role, text in case.history
    ])
    # The bench measures what the turn recalls: it queues no extraction.
    turn = start_turn(conversation, case.message, now=persona.now, llm=None,  # no model: what it recalls is measured
                      enqueue_extraction=lambda conversation_id, message_ids: None)
    injected = tuple(key_of.get(item.memory.pk, f"#{item.memory.pk}") for item in turn.recalled)
    return TurnOutcome(case.id, case.language, case.shape, persona.split, case.needs, case.relevant,
                       injected, getattr(turn, "recall_ms", 0.0))


def run(args: argparse.Namespace) -> dict:
    os.environ.setdefault("GRAPH_BACKEND", "off")
    runtime.setup_django()
    from django.conf import settings
    from django.utils import timezone

    from memoryapp.engine.learned.model import rules_only

    if args.rules:
        with rules_only():
            return _run(args, settings, timezone)
    return _run(args, settings, timezone)


def _run(args: argparse.Namespace, settings, timezone) -> dict:
    from memoryapp.engine.chat.relevance import MODEL_NAME
    from memoryapp.engine.learned.model import usable
    from memoryapp.engine.recall.recipes import RECALL_CHAT

    personas = load_personas(tuple(args.split))
    if args.locomo:
        from .dataset import load

        personas += [locomo_persona(sample, args.locomo) for sample in load(args.locomo_data)]
    now = timezone.now()
    outcomes: list[TurnOutcome] = []
    started = time.perf_counter()
    graph_modes = getattr(args, "graph", None) or []
    with_graph: dict[str, list[TurnOutcome]] = {mode: [] for mode in graph_modes}
    graph_sync: dict = {}
    for persona in personas:
        user, key_of = write_memories(persona, now, args.pad)
        for case in persona.cases:
            outcomes.append(run_case(user, persona, case, key_of))
        if "off" in with_graph:
            with_graph["off"].extend(outcomes[-len(persona.cases):] if persona.cases else [])
        if "on" in with_graph:
            from django.test import override_settings

            with override_settings(GRAPH_BACKEND="graphiti"):  # the app's default backend, no model
                graph_bench.merge_sync(graph_sync, graph_bench.sync_user(user.pk, graph_bench.memory_ids(user.pk)))
                for case in persona.cases:
                    with_graph["on"].append(run_case(user, persona, case, key_of))
                graph_bench.drop_user(user.pk)
        logger.info("%s: %d cases", persona.name, len(persona.cases))
    chat = [o for o in outcomes if o.split != "locomo"]
    graph = {}
    for mode, found in with_graph.items():
        mine = [o for o in found if o.split != "locomo"]
        graph[mode] = {"overall": summarise(mine), "by_language": grouped(mine, "language"),
                       "locomo": summarise([o for o in found if o.split == "locomo"]) if args.locomo else None}
    if "on" in graph:
        graph["on"]["sync"] = graph_sync
    return {
        "benchmark": "bench.chat",
        "embedding_model": settings.EMBEDDING_MODEL,
        "recipe": RECALL_CHAT.model_dump(mode="json"),
        # learned: the trained relevance model chose (engine/chat/relevance.py); rules: the fixed gates.
        "decider": "learned" if usable(MODEL_NAME) else "rules",
        "splits": args.split,
        "padded_to": args.pad,
        "overall": summarise(chat),
        "by_language": grouped(chat, "language"),
        "by_shape": grouped(chat, "shape"),
        "by_split": {split: {"overall": summarise(group), "by_language": grouped(group, "language")}
                     for split in args.split if (group := [o for o in chat if o.split == split])},
        "locomo": summarise([o for o in outcomes if o.split == "locomo"]) if args.locomo else None,
        **({"graph": graph} if graph else {}),
        "seconds": round(time.perf_counter() - started, 1),
        "turns": [{"id": o.case_id, "split": o.split, "language": o.language, "shape": o.shape,
                   "needs": sorted(o.needs), "relevant": sorted(o.relevant), "injected": list(o.injected),
                   "recall_ms": round(o.recall_ms, 2)} for o in outcomes],
    }


def _fmt(value) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def print_summary(result: dict) -> None:
    header = f"{'':24} {'turns':>5} {'hit@3':>6} {'prec':>6} {'inj/none':>8} {'mem/turn':>8} {'p50 ms':>7} {'p95 ms':>7}"

    def row(name: str, s: dict) -> str:
        lat = s.get("recall_ms") or {}
        return (f"{name:24} {s['turns']:5d} {_fmt(s['need_hit_at_3'])} {_fmt(s['precision'])} "
                f"{_fmt(s['no_memory_injection_rate']):>8} {_fmt(s['memories_per_turn']):>8} "
                f"{lat.get('p50', float('nan')):7.1f} {lat.get('p95', float('nan')):7.1f}")

    print(f"bench.chat, embedder {result['embedding_model']}, {result.get('decider', 'rules')} relevance")
    print(header)
    print(row("all", result["overall"]))
    for mode, values in result.get("graph", {}).items():
        print(row(f"graph {mode}", values["overall"]))
        for language, s in values["by_language"].items():
            print(row(f"  graph {mode}, {language}", s))
    for split, values in result["by_split"].items():
        print(row(f"split {split}", values["overall"]))
        for language, s in values["by_language"].items():
            print(row(f"  {split} {language}", s))
    for language, s in result["by_language"].items():
        print(row(f"language {language}", s))
    for shape, s in result["by_shape"].items():
        print(row(f"shape {shape}", s))
    if result["locomo"]:
        print(row("locomo questions", result["locomo"]))


def print_misses(result: dict, count: int) -> None:
    for split in result["splits"]:
        wrong = [t for t in result["turns"] if t["split"] == split
                 and (set(t["needs"]) - set(t["injected"]) or set(t["injected"]) - set(t["relevant"]))]
        for turn in wrong[:count]:
            print(f"{turn['id']:22} {turn['shape']:16} needs={turn['needs']} got={turn['injected']}")


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.chat", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
