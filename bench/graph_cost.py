"""What each graph extraction costs per memory: graphiti's own (GRAPH_EXTRACTION=model) against the
model-free default (rules), so an operator can choose.

    python -m bench.graph_cost [--per-language 20] [--latency-s 0.5 2.0] [--usd-per-million 0.15 0.60]
                               [--json bench/results/graph_cost.json]

The first `--per-language` English and Chinese sentences of the written entity cases (bench/entity_cases/dev)
become memories of a fresh user per language and mode (each row with its vector, as the app writes it), then
sync one at a time as the graph task does (graph/sync.py), on the embedded FalkorDB with the configured
embedder. With `model`, graphiti's prompts go to the scripted OpenAI-protocol server
(tests/support/llm_server.py), which answers at once with valid JSON for each prompt's response model
(tests/integration/graph/graphiti_script.py), naming as entities the sentence's gold entities and the
speaker "User", and one fact from User to each, and summarising an entity in 900 characters: about what a
good model would say.

Per memory: model calls by purpose (graphiti names each prompt's response model; the server sees only that),
rounds (a step's calls run together), prompt and completion tokens as the server sees the requests
(memoryapp.engine.text.count_tokens: about 4 characters or 1 CJK character a token; the JSON schema that
structured output sends counts as input), embedder calls and texts, and seconds on our side (graphiti,
FalkorDB, embeddings and the local HTTP round trips; the scripted answers take no time). Two warm-up memories per
mode (imports, the model, jieba's dictionary, indexes) are left out. `estimate` adds a real model: rounds x the fast latency to
calls x the slow one, tokens at the price given (bench/graph_cost_metrics.py, Assumptions).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import runtime
from .entity_data import Case, load_cases, split_sha256
from .graph_cost_metrics import Assumptions, CallLedger, MemoryCost, estimate, summarise

logger = logging.getLogger("bench.graph_cost")
RESULTS = runtime.REPO / "bench" / "results"
MODES = ("rules", "model")
LANGUAGES = ("en", "zh")
SUMMARY_CHARS = 900
WARM_UP = ("I visited Lisbon with my friend Anna", "我和同事小林去了杭州")  # loads graphiti, the model, jieba


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of memories, at least 1, not {text!r}")
    return int(text)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.graph_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-language", type=_positive, default=20, help="memories per language and mode")
    parser.add_argument(
        "--latency-s",
        type=float,
        nargs=2,
        default=list(Assumptions.latency_s),
        metavar=("FAST", "SLOW"),
        help="a real model's seconds per call, for the estimate (default 0.5 2.0)",
    )
    parser.add_argument(
        "--usd-per-million",
        type=float,
        nargs=2,
        metavar=("IN", "OUT"),
        default=[Assumptions.usd_per_million_in, Assumptions.usd_per_million_out],
        help="price per million prompt and completion tokens (default: gpt-4o-mini's list price)",
    )
    parser.add_argument("--json", type=Path, default=RESULTS / "graph_cost.json")
    return parser.parse_args(argv)


def pick_cases(per_language: int) -> list[Case]:
    cases = load_cases("dev")
    return [case for language in LANGUAGES for case in [c for c in cases if c.language == language][:per_language]]


def gold_script(ledger: CallLedger, cases: list[Case]):
    """graphiti's scripted model, naming each sentence's gold entities, recording every call in `ledger`."""
    from tests.integration.graph.graphiti_script import GraphitiScript, _block, _iso_z, memory_sentence, third_person

    gold = {case.text: [name for name, _ in case.entities] for case in cases}

    class GoldScript(GraphitiScript):
        def __call__(self, body: dict) -> str:
            answer = super().__call__(body)
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
            ledger.record(schema, body, answer)
            return answer

        def _ExtractedEntities(self, prompt: str) -> dict[str, Any]:
            sentence = memory_sentence(_block(prompt, "CURRENT MESSAGE") or _block(prompt, "TEXT"))
            if sentence not in gold:
                return super()._ExtractedEntities(prompt)
            return {
                "extracted_entities": [
                    {"name": name, "entity_type_id": 0, "episode_indices": [0]} for name in ["User", *gold[sentence]]
                ]
            }

        def _ExtractedEdges(self, prompt: str) -> dict[str, Any]:
            sentence = memory_sentence(_block(prompt, "CURRENT_MESSAGE"))
            if sentence not in gold:
                return super()._ExtractedEdges(prompt)
            names = [n["name"] for n in json.loads(_block(prompt, "ENTITIES") or "[]")]
            when = _iso_z(_block(prompt, "REFERENCE_TIME").split("#")[0])
            fact = third_person(sentence).replace("我", "用户")
            relation = "_".join(w.upper() for w in re.findall(r"[A-Za-z]+", sentence)[1:3]) or "RELATES_TO"
            return {
                "edges": [
                    {
                        "source_entity_name": "User",
                        "target_entity_name": name,
                        "relation_type": relation,
                        "fact": fact,
                        "valid_at": when,
                        "invalid_at": None,
                    }
                    for name in names
                    if name != "User"
                ]
            }

        def _SummarizedEntities(self, prompt: str) -> dict[str, Any]:
            # A model writing near graphiti's 1,000-character limit: the next call comes once facts appended
            # to it pass 2,000 characters (an empty answer would leave it long and ask again every memory).
            entities = json.loads(_block(prompt, "ENTITIES") or "[]")
            return {
                "summaries": [
                    {"name": e["name"], "summary": str(e.get("summary") or "")[:SUMMARY_CHARS]} for e in entities
                ]
            }

    return GoldScript()


@contextmanager
def counting_embedder():
    """Count the configured embedder's calls and texts (graphiti's and ours go through `embed`)."""
    from memoryapp.providers.embeddings import get_embedder

    embedder = get_embedder()
    counts = {"calls": 0, "texts": 0}
    plain = embedder.embed

    def embed(texts: list[str]) -> list[list[float]]:
        counts["calls"] += 1
        counts["texts"] += len(texts)
        return plain(texts)

    embedder.embed = embed  # embed_one goes through it too
    try:
        yield counts
    finally:
        del embedder.embed


def write_memories(texts: list[str], prefix: str) -> tuple[Any, dict[int, list[float]]]:
    """A fresh user's memories, oldest first, and the vector each row would hold."""
    from memoryapp.engine.text import content_key
    from memoryapp.models import Memory
    from memoryapp.providers.embeddings import get_embedder

    user = runtime.fresh_user(prefix)
    vectors = get_embedder().embed(texts)
    rows = [
        Memory.objects.create(user=user, content=text, content_key=content_key(text), embedding=vector)
        for text, vector in zip(texts, vectors)
    ]
    return user, {row.pk: vector for row, vector in zip(rows, vectors)}


def sync_costs(language: str, vectors: dict[int, list[float]], ledger: CallLedger, embeds: dict) -> list[MemoryCost]:
    from memoryapp.graph import get_graph, sync

    graph = get_graph()
    costs = []
    for memory_id in vectors:
        mark, calls, texts = ledger.mark(), embeds["calls"], embeds["texts"]
        started = time.perf_counter()
        outcome = sync.sync_memory(memory_id, graph)
        seconds = time.perf_counter() - started
        assert outcome is sync.SyncOutcome.SYNCED, f"memory {memory_id}: {outcome}"
        costs.append(
            MemoryCost(language, seconds, tuple(ledger.since(mark)), embeds["calls"] - calls, embeds["texts"] - texts)
        )
    return costs


def run_mode(mode: str, cases: list[Case], ledger: CallLedger, model_url: str) -> dict:
    from django.test import override_settings

    from memoryapp.graph import sync

    settings = {
        "GRAPH_BACKEND": "graphiti",
        "GRAPH_EXTRACTION": mode,
        "GRAPH_NAMESPACE": f"benchcost{os.getpid()}",
        "OPENAI_BASE_URL": model_url,
        "OPENAI_API_KEY": "bench",
        "LLM_TIMEOUT_SECONDS": "30",
    }
    costs: list[MemoryCost] = []
    with override_settings(**settings):
        user, vectors = write_memories(list(WARM_UP), f"graphcost-{mode}-warm")
        with counting_embedder() as embeds:
            sync_costs("en", vectors, ledger, embeds)
        sync.drop_user(user.pk)
        user.delete()
        for language in LANGUAGES:
            user, vectors = write_memories(
                [c.text for c in cases if c.language == language], f"graphcost-{mode}-{language}"
            )
            try:
                with counting_embedder() as embeds:
                    costs += sync_costs(language, vectors, ledger, embeds)
                logger.info("%s, %s: %d memories synced", mode, language, len(vectors))
            finally:
                sync.drop_user(user.pk)
                user.delete()
    return {
        "overall": summarise(costs),
        "by_language": {language: summarise([c for c in costs if c.language == language]) for language in LANGUAGES},
    }


def run(args: argparse.Namespace) -> dict:
    os.environ.setdefault("GRAPH_BACKEND", "off")  # memories written here are synced by the bench, not queued
    runtime.setup_django()
    from memoryapp.engine.text import count_tokens
    from memoryapp.engine.warmup import warm_embedder
    from tests.support.llm_server import ScriptedLLMServer

    warm_embedder()
    cases = pick_cases(args.per_language)
    ledger = CallLedger(count_tokens)
    usd_in, usd_out = args.usd_per_million
    named = (usd_in, usd_out) == (Assumptions.usd_per_million_in, Assumptions.usd_per_million_out)
    assumptions = Assumptions(
        latency_s=tuple(args.latency_s),
        usd_per_million_in=usd_in,
        usd_per_million_out=usd_out,
        price_of=Assumptions.price_of if named else "--usd-per-million",
    )
    modes = {}
    with ScriptedLLMServer() as server:
        server.default = gold_script(ledger, cases)
        for mode in MODES:
            modes[mode] = run_mode(mode, cases, ledger, server.url)
    from django.conf import settings

    return {
        "cases": {
            "split": "dev",
            "sha256": split_sha256("dev"),
            "memories": {language: sum(c.language == language for c in cases) for language in LANGUAGES},
            "gold_entities_per_memory": round(sum(len(c.entities) for c in cases) / len(cases), 2),
        },
        "embedding_model": settings.EMBEDDING_MODEL,
        "modes": modes,
        "assumptions": {
            "latency_s_per_call": list(assumptions.latency_s),
            "usd_per_million_in": assumptions.usd_per_million_in,
            "usd_per_million_out": assumptions.usd_per_million_out,
            "price_of": assumptions.price_of,
        },
        "estimate": {mode: estimate(modes[mode]["overall"], assumptions) for mode in MODES},
    }


def print_summary(result: dict) -> None:
    print(f"{'':14} {'s/memory':>9} {'p95':>7} {'calls':>6} {'rounds':>6} {'tok in':>7} {'tok out':>7} {'embeds':>6}")
    for mode, part in result["modes"].items():
        for label, s in [("all", part["overall"]), *part["by_language"].items()]:
            print(
                f"{mode + ' ' + label:14} {s['seconds_per_memory']['mean']:9.3f} {s['seconds_per_memory']['p95']:7.3f} "
                f"{s['model_calls_per_memory']['mean']:6.2f} {s['model_rounds_per_memory']:6.2f} "
                f"{s['prompt_tokens_per_memory']:7.0f} {s['completion_tokens_per_memory']:7.0f} "
                f"{s['embedding_calls_per_memory']:6.2f}"
            )
    for purpose, p in result["modes"]["model"]["overall"]["by_purpose"].items():
        print(
            f"  {purpose:20} {p['calls_per_memory']:.2f} calls/memory, {p['prompt_tokens_per_call']:.0f} tokens in, "
            f"{p['completion_tokens_per_call']:.0f} out per call"
        )
    for mode, e in result["estimate"].items():
        print(
            f"with a real model, {mode}: {e['seconds_per_memory']} s per memory, USD {e['usd_per_1000_memories']} "
            f"per 1,000 memories"
        )


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("httpx", "httpx2", "graphiti_core"):  # a line per model call and per episode
        logging.getLogger(noisy).setLevel(logging.WARNING)
    args = parse_args(argv)
    result = run(args)
    print_summary(result)
    runtime.write_result(args.json, result, "bench.graph_cost", argv)


if __name__ == "__main__":
    main()
