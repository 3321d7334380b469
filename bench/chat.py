"""What the assistant is handed each chat turn: the real chat path, measured per language and case shape.

    python -m bench.chat [--split dev holdout] [--locomo N] [--rules] [--pad N] [--distractors N]
                         [--model-path] [--cues PATH] [--graph on off] [--json OUT]

Every persona (bench/chat_cases/<split>/*.json) becomes a fresh user with its memories; every case
becomes a conversation holding its history, and its message goes through `engine.chat.chat.start_turn`
(query building, the trained relevance model or, with --rules, the fixed gates of RECALL_CHAT, the
memory budget) exactly as a chat turn does. `--pad N` fills each store to N memories with synthetic ones. The memories that
reach the prompt are compared with the case's labels (bench/chat_metrics.py). `--locomo N` adds N
questions per LoCoMo dev conversation, asked after the conversation's last two turns.
Each summary line gives, beside the share of turns needing no memory that were handed one (inj/none),
that share for the turns asked on behalf of someone else (inj/3rd: `third_person_handed_memory`).
`--distractors N` adds N memories to each persona's store that no case needs: every other persona's
(bench/chat_cases/*/, all splits) and synthetic ones for the rest. `--model-path` runs each persona's cases
a second time as a turn with a model is handed its memories (engine/chat/offer.py: wider, numbered) and
reports `model_path` (bench/chat_metrics.py `model_path_summary`).
The graph is off (GRAPH_BACKEND=off) unless `--graph on` syncs each persona into it (bench/graph.py) and asks it.
`--cues PATH` (bench/chat_cases/cues.json: situations written for each persona memory from its text
alone, as the extraction prompt asks a model) writes every persona a second time, its memories with
those cues, and asks each turn of both: `with_cues` reports the second beside the plain figures. The
distractors of the cued store carry the cues the file gives their text (other personas' memories, found
by content); synthetic ones have none (`with_cues.distractors_with_cues` says how many do). With
`--model-path` too, the cued stores are also asked as a model is handed them (`with_cues.model_path`).
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
from .chat_metrics import TurnOutcome, grouped, model_path_summary, summarise

logger = logging.getLogger("bench.chat")
LIST_LENGTHS = (20, 30, 50)  # --model-path: the list's hit at these many lines (candidates_hit)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.chat", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--split",
        nargs="+",
        choices=SPLITS + EXTRA_SPLITS,
        default=list(SPLITS),
        help="past: the time-travel cases (not in the default, whose figures stay comparable)",
    )
    parser.add_argument(
        "--locomo", type=int, default=20, metavar="N", help="LoCoMo questions per dev conversation (0: none)"
    )
    parser.add_argument("--locomo-data", type=Path, default=runtime.LOCOMO_DATA)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument(
        "--pad",
        type=int,
        default=0,
        metavar="N",
        help="pad each persona's store to N memories with synthetic ones (latency at scale)",
    )
    parser.add_argument(
        "--distractors",
        type=int,
        default=0,
        metavar="N",
        help="add N memories no case needs to each persona: other personas', then synthetic ones",
    )
    parser.add_argument(
        "--model-path",
        action="store_true",
        help="also measure what a turn with a model is handed (model_path in the results)",
    )
    parser.add_argument(
        "--rules",
        action="store_true",
        help="the hand-written gates instead of the trained relevance model (learned.rules_only)",
    )
    parser.add_argument(
        "--cues",
        type=Path,
        metavar="PATH",
        help="cue file ({persona: {memory key: [cues]}}): also run every persona with them (with_cues)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="also run every persona with no cues at all, none inferred (plain, beside the default's inferred cues)",
    )
    graph_bench.add_argument(parser)
    parser.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N wrong turns per split")
    return parser.parse_args(argv)


def write_memories(
    persona: Persona,
    now,
    pad: int = 0,
    distractors: list[tuple[str, str]] | None = None,
    cues: dict[str, list[str]] | None = None,
    distractor_cues: dict[str, list[str]] | None = None,
    label: str = "",
):
    """A fresh user holding the persona's memories (and synthetic ones up to `pad`, keyed "#id": never
    needed; and `distractors`, (content, kind) pairs, also never needed), each with its `cues` (memory
    key -> cues) when given, the distractors with `distractor_cues` (content -> cues); returns
    (user, memory id -> key)."""
    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput
    from memoryapp.models import MemorySettings

    from .ingest import embed_cached

    user = runtime.fresh_user(f"chat-{persona.name}{'-cues' if cues is not None else ''}{'-' + label if label else ''}")
    # No extraction: the benchmark measures what a turn is handed, not what it teaches.
    MemorySettings.objects.update_or_create(user=user, defaults={"extract_every_n_turns": 10_000})
    # Persona memories were learnt over the last three months, a few days apart.
    items = [
        MemoryInput(
            content=m.content,
            kind=m.kind,
            context=m.context,
            cues=(cues or {}).get(m.key, []),
            valid_from=m.valid_from or now - timedelta(days=(index * 7) % 90),
        )
        for index, m in enumerate(persona.memories)
    ]
    vectors, _ = embed_cached([item.content for item in items], runtime.BENCH_VAR_DIR / "vectors")
    written = bulk_add(user.pk, items, embeddings=vectors, cue_embeddings=_cue_vectors(items))

    key_of: dict[int, str] = {}
    by_key = {}
    for memory, stored in zip(written, persona.memories):
        if memory is not None:
            key_of[memory.pk] = stored.key
            by_key[stored.key] = memory
    _link_versions(persona, by_key)
    if distractors:
        _add_distractors(user, distractors, now, distractor_cues or {})
    if pad > len(written):
        _pad(user, pad - len(written))
    return user, key_of


def _cue_vectors(items) -> list[list[float] | None]:
    """The cues' vectors as the write path computes them (one per memory's cues), cached like the contents'."""
    from memoryapp.engine.memories.cue_fields import cue_text

    from .ingest import embed_cached

    texts = [cue_text(item.cues) for item in items if item.cues]
    vectors = iter(embed_cached(texts, runtime.BENCH_VAR_DIR / "vectors")[0] if texts else [])
    return [next(vectors) if item.cues else None for item in items]


def load_cues(path: Path) -> dict[str, dict[str, list[str]]]:
    """{persona: {memory key: [cues]}} from a cue file."""
    import json

    data = json.loads(path.read_text())
    return {
        persona: {key: list(cues) for key, cues in memories.items()}
        for persona, memories in data.items()
        if not persona.startswith("_")
    }


def cues_by_content(cue_file: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    """Memory text -> its cues, for every persona memory the cue file covers (all splits): how a
    distractor that is another persona's memory finds its cues."""
    from .chat_data import CASES_DIR

    splits = tuple(sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir()))
    return {
        m.content: cue_file[p.name][m.key]
        for p in load_personas(splits)
        for m in p.memories
        if cue_file.get(p.name, {}).get(m.key)
    }


def distractors_for(persona: Persona, count: int) -> list[tuple[str, str]]:
    """`count` memories for `persona`'s store that none of its cases needs: the memories of every other
    persona in bench/chat_cases (all splits: people like this user, so near misses), then synthetic ones
    (bench/synthetic.py) for the rest."""
    from . import synthetic
    from .chat_data import CASES_DIR

    splits = tuple(sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir()))
    own = {m.content for m in persona.memories}
    found: dict[str, str] = {}
    for other in load_personas(splits):
        if other.name != persona.name:
            found.update((m.content, m.kind) for m in other.memories if m.content not in own)
    rows = list(found.items())[:count]
    written = synthetic.memories(max(0, count - len(rows)), synthetic.base_sentences(300), seed=23)
    return rows + [(text, "fact") for text, _ in written]


def _add_distractors(user, rows: list[tuple[str, str]], now, cues: dict[str, list[str]]) -> None:
    """Learnt over the same three months as the persona's own, so recency favours neither; each with the
    cues `cues` (content -> cues) gives its text."""
    from memoryapp.engine.memories.bulk import bulk_add
    from memoryapp.engine.memories.validation import MemoryInput

    from .ingest import embed_cached

    items = [
        MemoryInput(
            content=content, kind=kind, cues=cues.get(content, []), valid_from=now - timedelta(days=(index * 5) % 90)
        )
        for index, (content, kind) in enumerate(rows)
    ]
    vectors, _ = embed_cached([content for content, _ in rows], runtime.BENCH_VAR_DIR / "vectors")
    bulk_add(user.pk, items, embeddings=vectors, cue_embeddings=_cue_vectors(items))


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


def run_case(user, persona: Persona, case: ChatCase, key_of: dict[int, str], for_model: bool = False) -> TurnOutcome:
    from conversations.models import Conversation, Message
    from memoryapp.engine.chat.chat import start_turn
    from memoryapp.engine.text import count_tokens

    conversation = Conversation.objects.create(user=user, title=case.id)
    Message.objects.bulk_create(
        [
            Message(conversation=conversation, role=role, content=text, token_count=count_tokens(text))
            for role, text in case.history
        ]
    )
    # The bench measures what the turn recalls: it queues no extraction.
    # No model runs: what the turn is handed is measured; `for_model` hands it as to one.
    turn = start_turn(
        conversation,
        case.message,
        now=persona.now,
        llm=None,
        for_model=for_model,
        enqueue_extraction=lambda conversation_id, message_ids: None,
    )
    injected = tuple(key_of.get(item.memory.pk, f"#{item.memory.pk}") for item in turn.recalled)
    return TurnOutcome(
        case.id,
        case.language,
        case.shape,
        persona.split,
        case.needs,
        case.relevant,
        injected,
        getattr(turn, "recall_ms", 0.0),
        memory_tokens=turn.memory_tokens,
    )


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
    from django.test import override_settings

    from memoryapp.engine.learned.model import usable
    from memoryapp.engine.learned.relevance import MODEL_NAME
    from memoryapp.engine.recall.recipes import RECALL_CHAT

    personas = load_personas(tuple(args.split))
    if args.locomo:
        from .dataset import load

        personas += [locomo_persona(sample, args.locomo) for sample in load(args.locomo_data)]
    now = timezone.now()
    outcomes: list[TurnOutcome] = []
    cue_file = load_cues(args.cues) if args.cues else None
    cue_of = cues_by_content(cue_file) if cue_file is not None else {}
    cued: list[TurnOutcome] = []  # the same turns, the persona's memories written with their cues
    model_outcomes: list[TurnOutcome] = []
    by_length: dict[int, list[TurnOutcome]] = {lines: [] for lines in LIST_LENGTHS}
    chat_users: list[int] = []
    cued_model: list[TurnOutcome] = []  # the cued stores, handed as to a model
    plain: list[TurnOutcome] = []  # the same turns, the stores written with no cues, none inferred
    plain_model: list[TurnOutcome] = []
    distractors_written = distractors_cued = 0
    started = time.perf_counter()
    graph_modes = getattr(args, "graph", None) or []
    with_graph: dict[str, list[TurnOutcome]] = {mode: [] for mode in graph_modes}
    graph_sync: dict = {}
    for persona in personas:
        padded = args.distractors and persona.split != "locomo"
        distractors = distractors_for(persona, args.distractors) if padded else None
        user, key_of = write_memories(persona, now, args.pad, distractors)
        chat_users.append(user.pk)
        for case in persona.cases:
            outcomes.append(run_case(user, persona, case, key_of))
            if args.model_path and persona.split != "locomo":
                model_outcomes.append(run_case(user, persona, case, key_of, for_model=True))
                for lines in LIST_LENGTHS:  # the list's hit by its length, no token cap
                    with override_settings(CHAT_MODEL_MEMORY_LINES=lines, CHAT_MODEL_MEMORY_TOKENS=10**6):
                        by_length[lines].append(run_case(user, persona, case, key_of, for_model=True))
        if "off" in with_graph:
            with_graph["off"].extend(outcomes[-len(persona.cases) :] if persona.cases else [])
        if "on" in with_graph:
            from django.test import override_settings

            with override_settings(GRAPH_BACKEND="graphiti", GRAPH_RECALL="on"):  # the app's default backend, no model
                graph_bench.merge_sync(graph_sync, graph_bench.sync_user(user.pk, graph_bench.memory_ids(user.pk)))
                for case in persona.cases:
                    with_graph["on"].append(run_case(user, persona, case, key_of))
                graph_bench.drop_user(user.pk)
        if cue_file is not None and persona.split != "locomo":
            user, key_of = write_memories(
                persona, now, args.pad, distractors, cues=cue_file.get(persona.name, {}), distractor_cues=cue_of
            )
            distractors_written += len(distractors or [])
            distractors_cued += sum(1 for content, _ in distractors or [] if cue_of.get(content))
            for case in persona.cases:
                cued.append(run_case(user, persona, case, key_of))
                if args.model_path:
                    cued_model.append(run_case(user, persona, case, key_of, for_model=True))
        if getattr(args, "plain", False) and persona.split != "locomo":
            with override_settings(INFER_CUES=False):
                user, key_of = write_memories(persona, now, args.pad, distractors, label="plain")
            for case in persona.cases:
                plain.append(run_case(user, persona, case, key_of))
                if args.model_path:
                    plain_model.append(run_case(user, persona, case, key_of, for_model=True))
        logger.info("%s: %d cases", persona.name, len(persona.cases))
    chat = [o for o in outcomes if o.split != "locomo"]
    extra = {}
    if plain:
        extra["plain"] = {
            "model_path": _model_path(plain_model, args) if args.model_path else None,
            "overall": summarise(plain),
            "by_language": grouped(plain, "language"),
            "by_split": {
                split: {"overall": summarise(group), "by_language": grouped(group, "language")}
                for split in args.split
                if (group := [o for o in plain if o.split == split])
            },
        }
    if cue_file is not None:
        extra["with_cues"] = {
            "cue_file": str(args.cues),
            "memories_with_cues": sum(1 for p in personas for m in p.memories if cue_file.get(p.name, {}).get(m.key)),
            # Distractors written into the cued stores, all personas, and how many carried cues (other
            # personas' memories the cue file covers; synthetic ones and train personas' have none).
            "distractors_with_cues": {
                "written": distractors_written,
                "with_cues": distractors_cued,
                "share": round(distractors_cued / distractors_written, 4) if distractors_written else None,
            },
            "model_path": _model_path(cued_model, args) if args.model_path else None,
            "overall": summarise(cued),
            "by_language": grouped(cued, "language"),
            "by_split": {
                split: {"overall": summarise(group), "by_language": grouped(group, "language")}
                for split in args.split
                if (group := [o for o in cued if o.split == split])
            },
            "turns": [{"id": o.case_id, "injected": list(o.injected)} for o in cued],
        }
    graph = {}
    for mode, found in with_graph.items():
        mine = [o for o in found if o.split != "locomo"]
        graph[mode] = {
            "overall": summarise(mine),
            "by_language": grouped(mine, "language"),
            "locomo": summarise([o for o in found if o.split == "locomo"]) if args.locomo else None,
        }
    if "on" in graph:
        graph["on"]["sync"] = graph_sync
    return {
        "benchmark": "bench.chat",
        "embedding_model": settings.EMBEDDING_MODEL,
        "recipe": RECALL_CHAT.model_dump(mode="json"),
        # learned: the trained relevance model chose (engine/learned/relevance.py); rules: the fixed gates.
        "decider": "learned" if usable(MODEL_NAME) else "rules",
        # The default's stores: memories written without cues got the situation bank's (INFER_CUES).
        "inferred_cues": _inferred_share(chat_users),
        "splits": args.split,
        "padded_to": args.pad,
        "overall": summarise(chat),
        "by_language": grouped(chat, "language"),
        "by_shape": grouped(chat, "shape"),
        "by_split": {
            split: {"overall": summarise(group), "by_language": grouped(group, "language")}
            for split in args.split
            if (group := [o for o in chat if o.split == split])
        },
        "locomo": summarise([o for o in outcomes if o.split == "locomo"]) if args.locomo else None,
        "distractors": args.distractors,
        # What a turn with a model is handed (engine/chat/offer.py), per split, and by language on holdout
        # (or on the first split measured when holdout is not).
        "model_path": {**_model_path(model_outcomes, args), "candidates_hit": _by_length(by_length, args)}
        if args.model_path
        else None,
        **({"graph": graph} if graph else {}),
        "seconds": round(time.perf_counter() - started, 1),
        "turns": [
            {
                "id": o.case_id,
                "split": o.split,
                "language": o.language,
                "shape": o.shape,
                "needs": sorted(o.needs),
                "relevant": sorted(o.relevant),
                "injected": list(o.injected),
                "recall_ms": round(o.recall_ms, 2),
            }
            for o in outcomes
        ],
        **extra,
    }


def _inferred_share(user_ids: list[int]) -> dict:
    """Of the default stores' current memories: how many carry cues the situation bank inferred."""
    from memoryapp.models import Memory

    rows = Memory.objects.filter(user_id__in=user_ids, valid_until__isnull=True)
    total, inferred = rows.count(), rows.filter(cues_inferred=True).count()
    return {"memories": total, "with_inferred_cues": inferred, "share": round(inferred / total, 4) if total else None}


def _by_length(by_length: dict[int, list[TurnOutcome]], args: argparse.Namespace) -> dict:
    """The model's list cut at each of LIST_LENGTHS lines with no token cap: the needed memory's hit and
    the tokens it costs, per split and language."""
    found = {}
    for lines, outcomes in by_length.items():
        found[str(lines)] = {
            split: {
                "overall": model_path_summary(group, 0, args.distractors),
                "by_language": {
                    language: model_path_summary([o for o in group if o.language == language], 0, args.distractors)
                    for language in sorted({o.language for o in group})
                },
            }
            for split in args.split
            if (group := [o for o in outcomes if o.split == split])
        }
    return found


def _model_path(outcomes: list[TurnOutcome], args: argparse.Namespace) -> dict:
    from memoryapp.engine.chat import offer

    cap = offer.memory_tokens()

    def by_language(group: list[TurnOutcome]) -> dict:
        languages = sorted({o.language for o in group})
        return {
            language: model_path_summary([o for o in group if o.language == language], cap, args.distractors)
            for language in languages
        }

    splits = {split: [o for o in outcomes if o.split == split] for split in args.split}
    shown = "holdout" if splits.get("holdout") else args.split[0]
    return {
        "split": shown,
        "candidates": offer.CANDIDATES,
        "memory_tokens": cap,
        "memory_lines": offer.memory_lines(),
        "overall": model_path_summary(splits[shown], cap, args.distractors),
        "by_language": by_language(splits[shown]),
        "by_split": {
            split: {
                "overall": model_path_summary(group, cap, args.distractors),
                "by_language": by_language(group),
            }
            for split, group in splits.items()
            if group
        },
        "turns": [
            {
                "id": o.case_id,
                "split": o.split,
                "language": o.language,
                "shape": o.shape,
                "needs": sorted(o.needs),
                "handed": len(o.injected),
                "memory_tokens": o.memory_tokens,
                "needed_at": [o.injected.index(key) + 1 if key in o.injected else None for key in sorted(o.needs)],
            }
            for o in outcomes
        ],
    }


def _fmt(value) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def print_summary(result: dict) -> None:
    header = (
        f"{'':24} {'turns':>5} {'hit@3':>6} {'prec':>6} {'inj/none':>8} {'inj/3rd':>8} {'mem/turn':>8} "
        f"{'p50 ms':>7} {'p95 ms':>7}"
    )

    def row(name: str, s: dict) -> str:
        lat = s.get("recall_ms") or {}
        return (
            f"{name:24} {s['turns']:5d} {_fmt(s['need_hit_at_3'])} {_fmt(s['precision'])} "
            f"{_fmt(s['no_memory_injection_rate']):>8} {_fmt(s.get('third_person_handed_memory')):>8} "
            f"{_fmt(s['memories_per_turn']):>8} "
            f"{lat.get('p50', float('nan')):7.1f} {lat.get('p95', float('nan')):7.1f}"
        )

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
    if result.get("plain"):
        print("plain (no cues, none inferred), the same turns:")
        print(row("all", result["plain"]["overall"]))
        for split, values in result["plain"]["by_split"].items():
            for language, s in values["by_language"].items():
                print(row(f"  {split} {language}", s))
    if result.get("with_cues"):
        cued = result["with_cues"]
        print(f"with cues ({cued['memories_with_cues']} memories cued from {cued['cue_file']}), the same turns:")
        print(row("all", cued["overall"]))
        for split, values in cued["by_split"].items():
            for language, s in values["by_language"].items():
                print(row(f"  {split} {language}", s))
        for language, s in cued["by_language"].items():
            print(row(f"language {language}", s))
    if result.get("model_path"):
        print_model_path(result["model_path"], result.get("distractors", 0), "model path")
    if (result.get("plain") or {}).get("model_path"):
        print_model_path(result["plain"]["model_path"], result.get("distractors", 0), "model path, plain")
    if (result.get("with_cues") or {}).get("model_path"):
        share = result["with_cues"]["distractors_with_cues"]
        print(f"distractors with cues: {share['with_cues']} of {share['written']}")
        print_model_path(result["with_cues"]["model_path"], result.get("distractors", 0), "model path, with cues")


def print_model_path(path: dict, distractors: int, title: str) -> None:
    print(
        f"{title} (up to {path.get('memory_lines', path['candidates'])} memories within {path['memory_tokens']} "
        f"tokens, {distractors} distractors per store), split {path['split']}:"
    )
    print(f"{'':24} {'turns':>5} {'hit@k':>6} {'all@k':>6} {'tokens':>7} {'nothing':>7} {'chat 0':>6}")
    for name, s in [("all", path["overall"]), *path["by_language"].items()]:
        print(
            f"{name:24} {s['turns']:5d} {_fmt(s['need_hit_at_k'])} {_fmt(s['all_needed_at_k'])} "
            f"{s['memory_tokens_mean']:7.1f} {_fmt(s['no_memory_rate'])} {_fmt(s['small_talk_handed_nothing'])}"
        )
    for lines, splits in (path.get("candidates_hit") or {}).items():
        found = "  ".join(
            f"{split} {name} {_fmt(s['need_hit_at_k']).strip()} ({s['memory_tokens_mean']:.0f} tok)"
            for split, group in splits.items()
            for name, s in [("all", group["overall"]), *group["by_language"].items()]
        )
        print(f"  {lines} lines, no token cap: {found}")


def print_misses(result: dict, count: int) -> None:
    for split in result["splits"]:
        wrong = [
            t
            for t in result["turns"]
            if t["split"] == split and (set(t["needs"]) - set(t["injected"]) or set(t["injected"]) - set(t["relevant"]))
        ]
        for turn in wrong[:count]:
            print(f"{turn['id']:22} {turn['shape']:16} needs={turn['needs']} got={turn['injected']}")


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.chat", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
