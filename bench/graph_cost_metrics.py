"""What one memory's graph sync costs: graphiti's model calls grouped by purpose, their tokens, the
embedder's calls and the seconds on our side; and what that comes to with a real model.

Pure: no Django, no servers (tests/unit/bench/test_graph_cost.py). bench/graph_cost.py feeds it.
"""

from __future__ import annotations

import json
import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# graphiti 0.31 names each prompt's pydantic response model in `response_format`; that name is all the
# model server sees, so calls are grouped by it, under the step of add_episode that asks.
PURPOSES = {
    "ExtractedEntities": "extract entities",
    "NodeResolutions": "dedupe entities",
    "ExtractedEdges": "extract facts",
    "EdgeDuplicate": "resolve facts",
    "EdgeTimestamps": "date facts",
    "BatchEdgeTimestamps": "date facts",
    "SummarizedEntities": "summarise entities",
    "EntitySummary": "summarise entities",
}


def purpose_of(schema_name: str) -> str:
    return PURPOSES.get(schema_name, schema_name or "unstructured")


def request_text(body: dict) -> str:
    """What a provider bills as input: every message, and the JSON schema structured output sends."""
    parts = [str(m.get("content") or "") for m in body.get("messages", [])]
    schema = (body.get("response_format") or {}).get("json_schema")
    if schema:
        parts.append(json.dumps(schema, ensure_ascii=False))
    return "\n".join(parts)


@dataclass(frozen=True)
class ModelCall:
    purpose: str
    prompt_tokens: int
    completion_tokens: int


@dataclass
class CallLedger:
    """The model server's side: every call it answered, in arrival order (answers come from several threads)."""

    count_tokens: Callable[[str], int]
    calls: list[ModelCall] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, schema_name: str, body: dict, answer: str) -> None:
        call = ModelCall(purpose_of(schema_name), self.count_tokens(request_text(body)), self.count_tokens(answer))
        with self.lock:
            self.calls.append(call)

    def since(self, mark: int) -> list[ModelCall]:
        with self.lock:
            return list(self.calls[mark:])

    def mark(self) -> int:
        with self.lock:
            return len(self.calls)


@dataclass(frozen=True)
class MemoryCost:
    """One memory's sync."""

    language: str
    seconds: float
    calls: tuple[ModelCall, ...] = ()
    embed_calls: int = 0
    embedded_texts: int = 0


def rounds(purposes: Sequence[str]) -> int:
    """Model round trips one after another: graphiti runs a step's calls together (one per fact when it
    resolves facts), so consecutive calls of one purpose are one round."""
    return sum(1 for i, purpose in enumerate(purposes) if i == 0 or purposes[i - 1] != purpose)


def _mean(values: Sequence[float], digits: int = 2) -> float:
    return round(statistics.fmean(values), digits) if values else 0.0


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


def summarise(costs: Sequence[MemoryCost]) -> dict:
    """Per memory: seconds (ours), model calls (in all and by purpose), rounds, tokens, embedder calls."""
    n = len(costs)
    seconds = [c.seconds for c in costs]
    calls = [len(c.calls) for c in costs]
    by_purpose: dict[str, dict] = {}
    for purpose in dict.fromkeys(call.purpose for c in costs for call in c.calls):
        mine = [[call for call in c.calls if call.purpose == purpose] for c in costs]
        flat = [call for per_memory in mine for call in per_memory]
        by_purpose[purpose] = {
            "calls_per_memory": _mean([len(m) for m in mine]),
            "memories_calling": sum(1 for m in mine if m),
            "prompt_tokens_per_call": _mean([call.prompt_tokens for call in flat], 0),
            "completion_tokens_per_call": _mean([call.completion_tokens for call in flat], 0),
        }
    return {
        "memories": n,
        "seconds_per_memory": {
            "mean": _mean(seconds, 4),
            "median": round(statistics.median(seconds), 4) if n else 0.0,
            "p95": round(_p95(seconds), 4),
        },
        "memories_per_s": round(n / sum(seconds), 1) if sum(seconds) else None,
        "model_calls_per_memory": {"mean": _mean(calls), "min": min(calls, default=0), "max": max(calls, default=0)},
        "model_rounds_per_memory": _mean([rounds([call.purpose for call in c.calls]) for c in costs]),
        "by_purpose": by_purpose,
        "prompt_tokens_per_memory": _mean([sum(call.prompt_tokens for call in c.calls) for c in costs], 0),
        "completion_tokens_per_memory": _mean([sum(call.completion_tokens for call in c.calls) for c in costs], 0),
        "embedding_calls_per_memory": _mean([c.embed_calls for c in costs]),
        "embedded_texts_per_memory": _mean([c.embedded_texts for c in costs]),
    }


@dataclass(frozen=True)
class Assumptions:
    """What a real model adds. Defaults: a hosted small model answers one of these prompts in 0.5-2 s;
    tokens at gpt-4o-mini's list price (USD 0.15 per million in, 0.60 out)."""

    latency_s: tuple[float, float] = (0.5, 2.0)
    usd_per_million_in: float = 0.15
    usd_per_million_out: float = 0.60
    price_of: str = "gpt-4o-mini list price"


def estimate(summary: dict, assumptions: Assumptions) -> dict:
    """Seconds per memory with a real model: from the rounds at the fast latency (each step's calls at
    once) to every call one after another at the slow one, plus our side; and USD per 1,000 memories."""
    ours = summary["seconds_per_memory"]["mean"]
    low, high = assumptions.latency_s
    usd = (
        summary["prompt_tokens_per_memory"] * assumptions.usd_per_million_in
        + summary["completion_tokens_per_memory"] * assumptions.usd_per_million_out
    ) / 1e6
    seconds = (
        round(ours + summary["model_rounds_per_memory"] * low, 2),
        round(ours + summary["model_calls_per_memory"]["mean"] * high, 2),
    )
    return {
        "seconds_per_memory": list(seconds),
        "memories_per_hour_one_worker": [round(3600 / s) if s else None for s in reversed(seconds)],
        "usd_per_1000_memories": round(usd * 1000, 4),
    }
