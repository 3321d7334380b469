"""Cost of a sync: model calls per memory and wall time, on the real FalkorDB (figures in docs/graph.md).

Run with `-s` to see the figures. The scripted model answers in ~1 ms, so the time is graphiti's
own work plus FalkorDB plus local embeddings; add your model's latency x calls for a real one.
"""

from __future__ import annotations

import statistics
import time

import pytest

from memoryapp.graph import search_memory_ids, sync

from .conftest import make_memory

pytestmark = pytest.mark.integration

MEMORIES = [
    "I live in Berlin",
    "I work at Acme as a data engineer",
    "I prefer Python over Java",
    "My sister Anna lives in Vienna",
    "I am learning Japanese",
    "I use Neovim for coding",
    "I drink Earl Grey tea every morning",
    "My dog Rex is a beagle",
    "I support FC Barcelona",
    "I am allergic to peanuts",
    "I play the Cello in an orchestra",
    "I want to run the Berlin Marathon",
]


def test_it_measures_model_calls_and_latency_per_synced_memory(alice, graph, graph_script, llm_server):
    make_memory(alice, "I visited Lisbon")  # warm-up: model load, indexes
    sync.sync_memory(sync.pending_ids(user_id=alice.pk)[0])
    calls, seconds = [], []
    for content in MEMORIES:
        memory = make_memory(alice, content)
        before = len(llm_server.chat_requests())
        started = time.perf_counter()
        assert sync.sync_memory(memory.pk) == sync.SyncOutcome.SYNCED
        seconds.append(time.perf_counter() - started)
        calls.append(len(llm_server.chat_requests()) - before)
    searches = []
    for content in MEMORIES:
        started = time.perf_counter()
        assert search_memory_ids(alice.pk, content, limit=5, timeout_s=10)
        searches.append(time.perf_counter() - started)

    print(f"\nmodel calls per synced memory: mean {statistics.mean(calls):.2f}, min {min(calls)}, max {max(calls)}")
    print(f"by prompt (all syncs): {dict(graph_script.calls)}")
    print(f"sync latency: median {statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms")
    print(
        f"search_memory_ids latency: median {statistics.median(searches) * 1000:.0f} ms, "
        f"max {max(searches) * 1000:.0f} ms ({len(graph.facts_of_user(alice.pk))} facts)"
    )
    assert max(calls) <= 6  # extract nodes, dedupe nodes, extract edges, dedupe edges, summaries, timestamps
